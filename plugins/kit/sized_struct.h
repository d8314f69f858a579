// SPDX-License-Identifier: Apache-2.0
// sized_struct.h: reading and writing struct_size-prefixed ABI structs within the other side's size.
// The versioning rule of tg_plugin.h in two templates, so no entry point hand-rolls TG_HAS checks.
#ifndef TG_PLUGINS_KIT_SIZED_STRUCT_H_
#define TG_PLUGINS_KIT_SIZED_STRUCT_H_

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace tg_kit {

// A zeroed T holding the fields the caller knew (its struct_size); fields past that read as zero,
// which the ABI defines as "default". |in| must not be NULL.
template <typename T>
T ReadSized(const T* in) {
  T out;
  std::memset(&out, 0, sizeof out);
  std::memcpy(&out, in, std::min<size_t>(sizeof(T), in->struct_size));
  out.struct_size = sizeof(T);
  return out;
}

// Copies |full| into |inout| but only up to the caller's struct_size (never past the end of the
// caller's struct), keeping the caller's struct_size.
template <typename T>
void WriteSized(const T& full, T* inout) {
  size_t n = std::min<size_t>(sizeof(T), inout->struct_size);
  size_t head = sizeof(inout->struct_size);
  if (n > head) {
    std::memcpy(reinterpret_cast<char*>(inout) + head, reinterpret_cast<const char*>(&full) + head,
                n - head);
  }
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_SIZED_STRUCT_H_
