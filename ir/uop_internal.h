// Private to //ir: the per-node derivations UOp::Make runs once, at construction.
// Split out of uop.cc so the interning code, the shape rules and the range rules each read on their own.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace tg::internal {

// The shape of a node from its op, sources and arg (ALU sources must agree, movement ops follow their arg);
// throws tg::Error naming the op and the shapes.
Shape DeriveShape(Ops op, DType dtype, const std::vector<UOpRef>& src, const Arg& arg);
// [vmin, vmax] of an integer/bool node from its sources' ranges; dtype limits where unknown.
std::pair<int64_t, int64_t> DeriveRange(Ops op, DType dtype, const std::vector<UOpRef>& src, const Arg& arg);

}  // namespace tg::internal
