// The hand-coded optimizer: picks opts for a kernel from the device's reported properties.
// The default of DESIGN §5 when BEAM search is off (tinygrad's hand_coded_optimizations).
#ifndef TG_COMPILER_CODEGEN_HEURISTIC_H_
#define TG_COMPILER_CODEGEN_HEURISTIC_H_

#include "compiler/codegen/kernel.h"
#include "runtime/device_info.h"

namespace tg::compiler {

// What the heuristic needs to know about the target.
struct TargetInfo {
  int vector_bytes = 64;        // SIMD register width (preferred_vector_width float32 lanes * 4)
  int cores = 1;                // workgroups run on this many threads at once
  bool vectors = true;          // the renderer emits vector types
  bool gpu = false;             // work items run in groups of threads (GPU dialects)
  int max_group_threads = 1;    // the device's limit on work items per group
};

TargetInfo TargetFor(const runtime::DeviceInfo& device);

// Applies opts to |k|. The first UPCAST/UNROLL it adds is the one meant to become SIMD vectors.
void ApplyHeuristic(Kernel& k, const TargetInfo& target);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_HEURISTIC_H_
