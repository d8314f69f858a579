// One-hot reduces: a gather written as a compare against arange, sum_r (r == e ? x(r) : 0), reads
// every one of r's N values to keep one. When e does not depend on r the sum has one term, so it is
// (0 <= e < N ? x(e) : 0): one indexed load instead of a loop (tinygrad reaches the same kernel by
// its arange folding). Embeddings, gather, one_hot losses and tensor indexing all build this shape,
// as a where or as a product with the one-hot (x(r) * (r == e), where an inf or NaN at an r not
// picked then stays out of the result, as it does in the gather the sum spells).
#ifndef TG_COMPILER_CODEGEN_ONE_HOT_REDUCES_H_
#define TG_COMPILER_CODEGEN_ONE_HOT_REDUCES_H_

#include "ir/pattern_matcher.h"

namespace tg::compiler {

// Rules on kernel ASTs (after rangeify): each removes one reduce loop whose only contribution is
// where the loop variable equals an expression free of it. Reduces kept: ADD, and MAX where the
// 0 of the non-selected terms is the dtype's lowest value (bool and unsigned), so dropping them
// changes nothing.
const PatternMatcher& OneHotReduceRules();

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_ONE_HOT_REDUCES_H_
