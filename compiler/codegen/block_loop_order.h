// Where a BLOCK loop may sit: any place among a group's output loops. Each output still sees its
// blocks one after another (a group runs on one thread), so the stored partial sums stay right
// whichever output loops run outside the block loop; an output loop moved outside it keeps the
// outputs it covers (a row block of a matmul) cached across all the blocks.
#ifndef TG_COMPILER_CODEGEN_BLOCK_LOOP_ORDER_H_
#define TG_COMPILER_CODEGEN_BLOCK_LOOP_ORDER_H_

#include <vector>

#include "compiler/codegen/opt.h"

namespace tg::compiler {

// Whether SWAP of positions |a| and |b| moves the BLOCK loop: one is BLOCK and the other a LOOP
// (never GLOBAL: blocks run by different groups would add into the same outputs at once).
template <typename Axis>
bool MovesBlockLoop(const std::vector<Axis>& axes, int a, int b) {
  auto valid = [&](int i) { return i >= 0 && i < static_cast<int>(axes.size()); };
  if (!valid(a) || !valid(b)) return false;
  AxisType x = axes[a].type, y = axes[b].type;
  return (x == AxisType::kBlock && y == AxisType::kLoop) || (x == AxisType::kLoop && y == AxisType::kBlock);
}

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_BLOCK_LOOP_ORDER_H_
