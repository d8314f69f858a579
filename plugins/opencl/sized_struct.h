// sized_struct.h: writing struct_size-prefixed ABI structs within the other side's size.
// The versioning rule of tg_plugin.h in one template, so no entry point hand-rolls TG_HAS checks.
#ifndef TG_PLUGINS_OPENCL_SIZED_STRUCT_H_
#define TG_PLUGINS_OPENCL_SIZED_STRUCT_H_

#include <algorithm>
#include <cstring>

namespace tg_ocl {

// Copies |full| into |inout| only up to the caller's struct_size, keeping the caller's struct_size.
template <typename T>
void WriteSized(const T& full, T* inout) {
  size_t n = std::min<size_t>(sizeof(T), inout->struct_size);
  size_t head = sizeof(inout->struct_size);
  if (n > head) {
    std::memcpy(reinterpret_cast<char*>(inout) + head, reinterpret_cast<const char*>(&full) + head,
                n - head);
  }
}

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_SIZED_STRUCT_H_
