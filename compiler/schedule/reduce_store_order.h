// Whether a fused kernel would store a reduce's result out of the reduce's own order.
//
// The codegen heuristic tiles a reduce kernel around the axis its STORE walks contiguously. When a
// reduce is stored through a permuting view (conv weight gradients written back to (o, c, ky, kx),
// a matmul stored transposed), that axis is the reduce's slowest output axis: the loads along it are
// gathers and the tile fails (fashion_mnist's distributed step: 3.3 s instead of 0.12 s for conv2).
// Such a reduce is its own kernel, stored in its own order, and the permuted copy is elementwise.
#ifndef TG_COMPILER_SCHEDULE_REDUCE_STORE_ORDER_H_
#define TG_COMPILER_SCHEDULE_REDUCE_STORE_ORDER_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// |path|: the nodes from a consumer of |reduce| up to and including the kernel root that stores it,
// each a source-of-the-next chain of movement and elementwise ops. True when one step along the
// root's innermost (non-1) axis does not move the reduce's row-major output index by one. Paths
// through another REDUCE or an ASSIGN's target give no opinion (false).
bool StoresReduceOutOfOrder(const UOp* reduce, const std::vector<const UOp*>& path);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_REDUCE_STORE_ORDER_H_
