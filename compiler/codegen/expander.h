// Expander: removes UPCAST/UNROLL loops by copying the work once per value of the loop.
// A codegen step of the walk in docs/architecture.md after opts; the vectorizer handles the one axis it can vectorize.
#ifndef TG_COMPILER_CODEGEN_EXPANDER_H_
#define TG_COMPILER_CODEGEN_EXPANDER_H_

#include "ir/uop.h"

namespace tg::compiler {

// Every STORE of |sink| becomes one store per value of |range| (an UPCAST output loop).
UOpRef UnrollOutputAxis(const UOpRef& sink, const UOpRef& range);

// Every REDUCE over |range| (an UNROLL reduce loop) folds the copies of its value, one per value
// of |range|, with its own op, and no longer loops over |range|. Copies of a sum that share a factor
// are summed before it multiplies them, once (shared_factor.h).
UOpRef UnrollReduceAxis(const UOpRef& sink, const UOpRef& range);

// Two partial results of a REDUCE combined with its op (ADD, MUL or MAX); bools with OR, or AND for MUL.
UOpRef CombineReduced(Ops op, const UOpRef& a, const UOpRef& b);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_EXPANDER_H_
