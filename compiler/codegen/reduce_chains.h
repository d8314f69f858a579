// Reduce chains: a vectorized reduce whose work item keeps one output carries one accumulator, so
// every step's add waits for the last one. Unrolling the reduce again folds several vector loads
// per step before the carried add, which then runs once per that many loads.
#ifndef TG_COMPILER_CODEGEN_REDUCE_CHAINS_H_
#define TG_COMPILER_CODEGEN_REDUCE_CHAINS_H_

#include "compiler/codegen/kernel.h"
#include "compiler/target.h"

namespace tg::compiler {

// Vector loads folded per step of the carried accumulator.
inline constexpr int64_t kLoadsPerStep = 4;
// Loops shorter than this (after the split) gain less than the unrolled body costs to compile.
inline constexpr int64_t kMinStepsAfterSplit = 64;
// A matrix-vector product's reduce is all of its work, and its body is a few loads: shorter loops pay.
inline constexpr int64_t kMinMatrixVectorSteps = 4;

// For a CPU kernel with its reduce already vectorized by UNROLL and no output tile (no UPCAST): UNROLLs
// the reduce axis by kLoadsPerStep when at least |min_steps| steps remain; with several reduces fused
// side by side, each one's axis. Returns whether it did.
bool ShortenReduceChain(Kernel& k, const Target& target, int64_t min_steps = kMinStepsAfterSplit);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_REDUCE_CHAINS_H_
