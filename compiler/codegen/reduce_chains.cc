#include "compiler/codegen/reduce_chains.h"

namespace tg::compiler {

bool ShortenReduceChain(Kernel& k, const Target& target) {
  if (target.gpu || !target.vectors) return false;
  int reduce = -1;
  bool unrolled = false;
  for (size_t i = 0; i < k.axes().size(); ++i) {
    AxisType t = k.axes()[i].type;
    if (t == AxisType::kUpcast) return false;  // a tile already carries one accumulator per output
    if (t == AxisType::kUnroll) unrolled = true;
    if (t != AxisType::kReduce) continue;
    if (reduce >= 0) return false;
    reduce = static_cast<int>(i);
  }
  if (reduce < 0 || !unrolled) return false;
  const int64_t steps = k.axes()[reduce].extent();
  if (steps % kLoadsPerStep != 0 || steps / kLoadsPerStep < kMinStepsAfterSplit) return false;
  k.Apply({OptOp::kUnroll, reduce, kLoadsPerStep});
  return true;
}

}  // namespace tg::compiler
