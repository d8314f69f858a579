// Split reduce: a reduce with a long loop and few outputs becomes partial reduces and a combine.
//
// A kernel runs its outputs in parallel, never one output's loop: a full sum of 64M floats is one
// output and runs on one core. Splitting one reduced axis n into (d, n / d), the first kernel reduces
// the n / d part into d partials per output (d outputs to spread over the cores, each reading a
// contiguous chunk) and the second reduces the d partials. tinygrad does the same (split_reduceop).
#ifndef TG_COMPILER_SCHEDULE_SPLIT_REDUCE_H_
#define TG_COMPILER_SCHEDULE_SPLIT_REDUCE_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// A reduce is split when it reads at least kSplitRatio elements per output.
inline constexpr int64_t kSplitRatio = 32768;
// The partials of all outputs together stay under kMaxPartials; per output, d is the largest divisor
// of a reduced axis in [kMinSplit, kMaxSplit].
inline constexpr int64_t kMaxPartials = int64_t{1} << 22;
inline constexpr int64_t kMinSplit = 8, kMaxSplit = 256;

// |roots| (tensor-graph nodes) with every such reduce split; each partial reduce is a CONTIGUOUS
// node (its own kernel). Graphs without one come back unchanged (the same nodes).
std::vector<UOpRef> SplitLargeReduces(const std::vector<UOpRef>& roots);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_SPLIT_REDUCE_H_
