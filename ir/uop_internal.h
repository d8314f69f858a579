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
// The symbolic lengths of a node's axes (UOp::lengths) from its sources' and its op's; null when no axis
// is symbolic. Throws tg::Error for a movement that would split, merge, pad, cut or flip a symbolic axis.
std::shared_ptr<const SymbolicLengths> DeriveLengths(Ops op, const Shape& shape, const std::vector<UOpRef>& src,
                                                     const Arg& arg);

}  // namespace tg::internal
