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

// For a CPU kernel with one reduce axis already vectorized by UNROLL and no output tile (no UPCAST):
// UNROLLs that axis by kLoadsPerStep when enough steps remain. Returns whether it did.
bool ShortenReduceChain(Kernel& k, const Target& target);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_REDUCE_CHAINS_H_
