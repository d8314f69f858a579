#include "compiler/codegen/reduce_chains.h"

#include <algorithm>
#include <vector>

namespace tg::compiler {

bool ShortenReduceChain(Kernel& k, const Target& target, int64_t min_steps) {
  if (target.gpu || !target.vectors) return false;
  std::vector<int> reduces;
  std::vector<const UOp*> owners;
  bool unrolled = false;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    AxisType t = k.axes()[i].type;
    if (t == AxisType::kUpcast) return false;  // a tile already carries one accumulator per output
    if (t == AxisType::kUnroll) unrolled = true;
    if (t != AxisType::kReduce) continue;
    reduces.push_back(static_cast<int>(i));
    owners.push_back(k.ReduceOf(k.axes()[i].range));
  }
  if (reduces.empty() || !unrolled) return false;
  // Several axes: only reduces fused side by side (a SwiGLU's gate and up), one axis each; the axes
  // of one reduce nested in each other (a convolution's channels and taps) keep their one chain.
  if (reduces.size() > 1)
    for (size_t i = 0; i < owners.size(); ++i)
      if (owners[i] == nullptr || std::count(owners.begin(), owners.end(), owners[i]) > 1) return false;
  for (int r : reduces) {
    const int64_t steps = k.axes()[r].extent();
    if (steps % kLoadsPerStep != 0 || steps / kLoadsPerStep < min_steps) return false;
  }
  // From the last axis back, so a split never moves an axis still to be split.
  for (auto it = reduces.rbegin(); it != reduces.rend(); ++it) k.Apply({OptOp::kUnroll, *it, kLoadsPerStep});
  return true;
}

}  // namespace tg::compiler
