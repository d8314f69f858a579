// SPDX-License-Identifier: Apache-2.0
// little_endian.h: fixed-width integers in byte strings, least significant byte first, so a cached
// binary means the same on any host that can run it.
#ifndef TG_PLUGINS_KIT_LITTLE_ENDIAN_H_
#define TG_PLUGINS_KIT_LITTLE_ENDIAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tg_kit {

// Appends the low |bytes| bytes of |v|.
inline void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

// Reads |bytes| bytes at |at|; the caller has checked that in.size() >= at + bytes.
inline uint64_t GetLe(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_LITTLE_ENDIAN_H_
