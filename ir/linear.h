// Linear: reads an integer index expression as base + coeff * variable, when it is one.
// Codegen uses it to find strides and contiguous (vectorizable) accesses along a loop.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/uop.h"

namespace tg {

struct LinearTerm {
  UOpRef base;    // the part that does not depend on the variable (simplified)
  int64_t coeff;  // how far one step of the variable moves the expression
};

// |expr| as base + coeff * |var| through ADD, MUL by constants and NEG; nullopt when |var| enters
// any other way (a division, a modulo, a comparison).
std::optional<LinearTerm> LinearIn(const UOpRef& expr, const UOpRef& var);

}  // namespace tg
