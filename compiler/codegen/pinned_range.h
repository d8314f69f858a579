// A pinned range: a condition that holds for one value of a loop variable only. A loop whose work
// all sits behind such a condition does its work once, at that value: a one-hot reduce
// (one_hot_reduces.h) or an in-place store of one slot (one_slot_stores.h).
#ifndef TG_COMPILER_CODEGEN_PINNED_RANGE_H_
#define TG_COMPILER_CODEGEN_PINNED_RANGE_H_

#include <optional>

#include "ir/substitute.h"
#include "ir/uop.h"

namespace tg::compiler {

// What a condition pinning the range r to e allows: with `valid` (0 <= e < N, e one of r's values),
// `at` the substitution that evaluates under the condition (r := e, 0 where e is not valid, and the
// conjuncts that pin r := true). e is free of r; the pin is a conjunct `r == e`, or the pair
// !(r < e) and !(e < r) that spells the one-slot interval e <= r <= e.
struct Pin {
  UOpRef valid;
  NodeMap at;
};

// The pin |cond| puts on |r| (a RANGE of constant extent), if any.
std::optional<Pin> PinOf(const UOpRef& cond, const UOpRef& r);

// Whether |r| occurs in |e|.
bool Mentions(const UOpRef& e, const UOpRef& r);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_PINNED_RANGE_H_
