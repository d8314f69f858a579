// One-slot stores: an in-place update of one slot of a buffer, x.assign(where(r == e, v, x)) along an
// axis r, is stored behind the gate r == e (unchanged_stores.h) and would still loop over all of r's
// N values to test the gate. When e does not depend on r the gate holds once, at r = e: the store
// runs without the loop, behind 0 <= e < N. A decoder's KV cache, written one position per step,
// becomes a kernel of the new slot's size instead of the whole cache's.
#ifndef TG_COMPILER_CODEGEN_ONE_SLOT_STORES_H_
#define TG_COMPILER_CODEGEN_ONE_SLOT_STORES_H_

#include "ir/pattern_matcher.h"

namespace tg::compiler {

// Rules on kernel ASTs (after rangeify): STORE(buf[i] if c, v) with c pinning a range r to e (free
// of r) -> STORE(buf[i'] if valid(e) && c', v'), where ' is r := e with the pin true.
const PatternMatcher& OneSlotStoreRules();

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_ONE_SLOT_STORES_H_
