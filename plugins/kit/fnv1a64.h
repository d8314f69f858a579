// SPDX-License-Identifier: Apache-2.0
// fnv1a64.h: the checksum of the kit's program-binary envelope and the CPU plugin's cache trailer.
#ifndef TG_PLUGINS_KIT_FNV1A64_H_
#define TG_PLUGINS_KIT_FNV1A64_H_

#include <cstdint>
#include <string_view>

namespace tg_kit {

// FNV-1a, 64-bit: catches truncation and bit flips; not a defence against a deliberate forgery.
inline uint64_t Fnv1a64(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull) {
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_FNV1A64_H_
