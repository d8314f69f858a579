// An in-place update stores only what it changes. The kernel of x.assign(c.where(v, x)) reads every
// element of x to write most of them back as they were; storing v behind the gate c instead leaves the
// other elements untouched and reads none of them (a KV cache written one slot per decode step).
#ifndef TG_COMPILER_SCHEDULE_UNCHANGED_STORES_H_
#define TG_COMPILER_SCHEDULE_UNCHANGED_STORES_H_

#include "ir/pattern_matcher.h"

namespace tg::compiler {

// STORE(buf[i], c.where(v, buf[i])) -> STORE(buf[i] if c, v), and the mirror with the kept element
// first. Only a read of the very element stored, ungated, is dropped: anything else may differ from it.
const PatternMatcher& UnchangedStoreRules();

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_UNCHANGED_STORES_H_
