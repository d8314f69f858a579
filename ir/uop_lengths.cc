// Symbolic lengths: which axes of a node are present only up to a variable's expression (VAR_SHRINK),
// followed through the ops that keep an axis whole. Storage is always the full shape; the lengths say
// which part of it means anything, so a reduce loops to the length and a store skips the rest.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "ir/uop_internal.h"

namespace tg::internal {
namespace {

using Lengths = std::shared_ptr<const SymbolicLengths>;

std::string LengthString(const UOpRef& length) {
  return absl::StrCat("a symbolic length (", length->vmin(), "..", length->vmax(), ")");
}

[[noreturn]] void Refuse(Ops op, size_t axis, const UOpRef& length, const std::string& what) {
  throw Error(absl::StrCat(std::string(OpName(op)), ": axis ", axis, " has ", LengthString(length), "; ", what,
                           " would move absent elements into view. Allowed on it: elementwise ops, reduces, "
                           "permutes and reshapes that keep the axis whole"));
}

Lengths VarShrink(const Shape& shape, const std::vector<UOpRef>& src, const Arg& arg) {
  const auto* axis = std::get_if<int64_t>(&arg);
  if (src.size() != 2 || axis == nullptr || *axis < 0 || *axis >= static_cast<int64_t>(shape.size()))
    throw Error("VAR_SHRINK: needs (tensor, length) and an axis of the tensor, got " + ArgString(arg));
  const UOpRef& length = src[1];
  if (length->dtype() != dtypes::int32 || !length->shape().empty())
    throw Error("VAR_SHRINK: the length must be an int32 scalar, got " + length->dtype().name() + " " +
                ShapeString(length->shape()));
  if (length->vmin() < 0 || length->vmax() > shape[*axis])
    throw Error(absl::StrCat("VAR_SHRINK: the length ranges over ", length->vmin(), "..", length->vmax(),
                             ", outside axis ", *axis, "'s 0..", shape[*axis]));
  if (src[0]->length(*axis) != nullptr)
    throw Error(absl::StrCat("VAR_SHRINK: axis ", *axis, " already has ", LengthString(src[0]->length(*axis))));
  auto out = std::make_shared<SymbolicLengths>(shape.size());
  if (src[0]->lengths() != nullptr) *out = *src[0]->lengths();
  (*out)[*axis] = length;
  return out;
}

// Elementwise: an axis is symbolic when any source's is, and two sources may not disagree on it.
Lengths Merge(Ops op, const Shape& shape, const std::vector<UOpRef>& src) {
  std::shared_ptr<SymbolicLengths> out;
  for (const UOpRef& s : src) {
    if (s->lengths() == nullptr || s->shape().size() != shape.size()) continue;
    if (!out) out = std::make_shared<SymbolicLengths>(shape.size());
    for (size_t k = 0; k < shape.size(); ++k) {
      const UOpRef& l = s->length(k);
      if (l == nullptr) continue;
      if ((*out)[k] != nullptr && (*out)[k] != l)
        throw Error(absl::StrCat(std::string(OpName(op)), ": axis ", k, " has two different symbolic lengths, ",
                                 LengthString((*out)[k]), " and ", LengthString(l),
                                 "; combine tensors cut to the same length"));
      (*out)[k] = l;
    }
  }
  return out;
}

// A reshape keeps a symbolic axis when the same-sized axis starts at the same flat stride position.
Lengths Reshape(const UOpRef& x, const Shape& shape) {
  auto out = std::make_shared<SymbolicLengths>(shape.size());
  int64_t before = 1;
  for (size_t k = 0; k < x->shape().size(); before *= x->shape()[k], ++k) {
    const UOpRef& l = x->length(k);
    if (l == nullptr) continue;
    int64_t at = 1;
    bool kept = false;
    for (size_t j = 0; j < shape.size() && at <= before; at *= shape[j], ++j)
      if (at == before && shape[j] == x->shape()[k] && (*out)[j] == nullptr) {
        (*out)[j] = l;
        kept = true;
        break;
      }
    if (!kept) Refuse(Ops::kReshape, k, l, "a reshape that splits or merges it");
  }
  return out;
}

Lengths Permute(const UOpRef& x, const Arg& arg) {
  const auto& perm = std::get<std::vector<int64_t>>(arg);
  auto out = std::make_shared<SymbolicLengths>(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) (*out)[k] = x->length(perm[k]);
  return out;
}

// PAD, SHRINK and FLIP leave a symbolic axis alone or are refused.
Lengths KeepUntouched(Ops op, const UOpRef& x, const Arg& arg) {
  const auto& v = std::get<std::vector<int64_t>>(arg);
  for (size_t k = 0; k < x->shape().size(); ++k) {
    const UOpRef& l = x->length(k);
    if (l == nullptr) continue;
    bool untouched = op == Ops::kFlip ? v[k] == 0
                     : op == Ops::kPad ? v[2 * k] == 0 && v[2 * k + 1] == 0
                                       : v[2 * k] == 0 && v[2 * k + 1] == x->shape()[k];
    if (!untouched) Refuse(op, k, l, op == Ops::kFlip ? "a flip" : op == Ops::kPad ? "a pad" : "a shrink");
  }
  return std::make_shared<SymbolicLengths>(*x->lengths());
}

Lengths Reduce(const UOpRef& x, const Arg& arg) {
  auto out = std::make_shared<SymbolicLengths>(*x->lengths());
  for (int64_t axis : std::get<ReduceArg>(arg).axes) (*out)[axis < 0 ? axis + out->size() : axis] = nullptr;
  return out;
}

bool AllWhole(const Lengths& l) {
  if (l == nullptr) return true;
  for (const UOpRef& u : *l)
    if (u != nullptr) return false;
  return true;
}

}  // namespace

Lengths DeriveLengths(Ops op, const Shape& shape, const std::vector<UOpRef>& src, const Arg& arg) {
  if (op == Ops::kVarShrink) return VarShrink(shape, src, arg);
  bool any = false;
  for (const UOpRef& s : src) any = any || s->lengths() != nullptr;
  if (!any) return nullptr;
  Lengths out;
  if (IsAlu(op)) {
    out = Merge(op, shape, src);
  } else {
    const UOpRef& x = src[0];
    if (x->lengths() == nullptr) return nullptr;
    switch (op) {
      case Ops::kReshape: out = Reshape(x, shape); break;
      case Ops::kPermute: out = Permute(x, arg); break;
      case Ops::kExpand: case Ops::kContiguous: case Ops::kDetach: case Ops::kCopy:
        out = std::make_shared<SymbolicLengths>(*x->lengths());
        break;
      case Ops::kPad: case Ops::kShrink: case Ops::kFlip: out = KeepUntouched(op, x, arg); break;
      case Ops::kReduce: out = Reduce(x, arg); break;
      case Ops::kMulti: case Ops::kAllreduce:
        throw Error(std::string(OpName(op)) + ": tensors with symbolic lengths cannot be sharded yet");
      default: return nullptr;  // kernel-level nodes, ASSIGN (its target is whole), stores
    }
  }
  return AllWhole(out) ? nullptr : out;
}

}  // namespace tg::internal
