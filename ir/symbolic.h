// The symbolic simplifier: integer algebra with range analysis, div/mod folding, constant folding.
// Runs in codegen (docs/architecture.md) on index math after rangeify, and anywhere a pass wants canonical expressions.
#pragma once

#include <optional>
#include <span>

#include "ir/pattern_matcher.h"
#include "ir/uop.h"

namespace tg {

const PatternMatcher& SymbolicRules();  // the simplifier
UOpRef Simplify(const UOpRef& root);    // graph_rewrite(root, SymbolicRules())

// Evaluates an ALU op on constants with C semantics in the operands' dtype |operand| (for WHERE, the dtype of
// the values). The result is not yet cast to the node's dtype. nullopt when C leaves it undefined (x/0, huge
// shifts) or the op has no constant meaning (THREEFRY, BITCAST).
std::optional<ConstValue> EvalAlu(Ops op, DType operand, std::span<const ConstValue> values);

}  // namespace tg
