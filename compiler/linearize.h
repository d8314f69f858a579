// Linearizer: orders a kernel AST into one list of UOps with RANGE/END loop nesting.
// Step "codegen -> linearize -> render" of the walk in docs/architecture.md. Reduces become accumulators here.
#ifndef TG_COMPILER_LINEARIZE_H_
#define TG_COMPILER_LINEARIZE_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// Returns the ops of |sink| in execution order. A RANGE in the list opens a loop and the matching
// END(range) closes it. A REDUCE(value, ranges...) becomes
//   DEFINE_ACC(identity, reduce)  RANGE..  <value>  ASSIGN(acc, acc <op> value)  END..  REDUCE
// where the trailing REDUCE stands for the accumulator's final value. Loop-invariant work is
// emitted before the loop it does not depend on.
std::vector<UOpRef> Linearize(const UOpRef& sink);

}  // namespace tg::compiler

#endif  // TG_COMPILER_LINEARIZE_H_
