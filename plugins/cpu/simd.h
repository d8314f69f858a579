// simd.h: the CPU plugin's Highway-dispatched routines (buffer copy/fill) and the SIMD target
// Highway picked for this machine, which the plugin reports as arch and vector width.
#ifndef TG_PLUGINS_CPU_SIMD_H_
#define TG_PLUGINS_CPU_SIMD_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace tg_cpu {

// dst and src must not overlap (callers use memmove for overlapping d2d ranges).
void CopyBytes(void* dst, const void* src, size_t n);
void FillBytes(void* dst, uint8_t value, size_t n);

struct SimdTarget {
  std::string name;          // Highway's target name, lower case: "avx3_dl", "avx2", "sse4"
  uint32_t float_lanes = 1;  // float32 lanes of one vector on that target
};
// The target HWY_DYNAMIC_DISPATCH selects on this CPU (computed once).
const SimdTarget& BestSimdTarget();

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_SIMD_H_
