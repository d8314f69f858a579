// The hand-coded optimizer: picks opts for a kernel from the device's reported properties.
// The default when BEAM search is off (tinygrad's hand_coded_optimizations; docs/architecture.md).
#ifndef TG_COMPILER_CODEGEN_HEURISTIC_H_
#define TG_COMPILER_CODEGEN_HEURISTIC_H_

#include "compiler/codegen/kernel.h"
#include "compiler/target.h"

namespace tg::compiler {

// Applies opts to |k|. The first UPCAST/UNROLL it adds is the one meant to become SIMD vectors.
void ApplyHeuristic(Kernel& k, const Target& target);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_HEURISTIC_H_
