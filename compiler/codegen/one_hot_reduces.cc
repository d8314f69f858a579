#include "compiler/codegen/one_hot_reduces.h"

#include <optional>
#include <utility>
#include <vector>

#include "compiler/codegen/pinned_range.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

bool ZeroIsIdentity(Ops op, DType dtype) {
  return op == Ops::kAdd || (op == Ops::kMax && (dtype.is_bool() || dtype.is_unsigned()));
}

// A reduce's body read as (cond ? value : 0).
struct Selection {
  UOpRef cond, value;
};

// where(c, x, 0) and casts of it; a bool cast to a number (c ? 1 : 0); and a product with one of
// those, x * (c ? v : 0) = c ? x * v : 0. The product form drops what x is where c is false, so an inf
// or NaN there no longer makes the sum NaN: the sum becomes the gather it spells (PyTorch's losses
// gather too).
std::optional<Selection> AsSelection(const UOpRef& u) {
  if (u->op() == Ops::kWhere && u->src(2)->is_const_value(int64_t{0})) return Selection{u->src(0), u->src(1)};
  if (u->op() == Ops::kCast && u->src(0)->dtype().is_bool() && !u->dtype().is_bool())
    return Selection{u->src(0), u->const_like(int64_t{1})};
  if (u->op() == Ops::kCast) {
    std::optional<Selection> inner = AsSelection(u->src(0));
    if (inner) return Selection{inner->cond, inner->value->cast(u->dtype())};
  }
  if (u->op() == Ops::kMul) {
    if (std::optional<Selection> a = AsSelection(u->src(0))) return Selection{a->cond, a->value * u->src(1)};
    if (std::optional<Selection> b = AsSelection(u->src(1))) return Selection{b->cond, u->src(0) * b->value};
  }
  return std::nullopt;
}

// REDUCE(body, ranges) with body = (c ? x : 0) and c pinning r, one of the ranges, to e:
// (valid(e) && c') ? x' : 0 over the other ranges, where ' is r := e with the pin true.
UOpRef CollapseOneHot(const Match& m) {
  const UOpRef& red = m["red"];
  if (!ZeroIsIdentity(red->arg_as<ReduceArg>().op, red->dtype())) return nullptr;
  std::optional<Selection> body = AsSelection(red->src(0));
  if (!body) return nullptr;
  for (size_t i = 1; i < red->src().size(); ++i) {
    const UOpRef& r = red->src(i);
    std::optional<Pin> pin = PinOf(body->cond, r);
    if (!pin) continue;
    UOpRef value = Substitute(body->value, pin->at);
    UOpRef picked = logical_and(pin->valid, Substitute(body->cond, pin->at))->where(value, value->const_like(int64_t{0}));
    std::vector<UOpRef> src{picked};
    for (size_t j = 1; j < red->src().size(); ++j)
      if (j != i) src.push_back(red->src(j));
    if (src.size() == 1) return picked->dtype() == red->dtype() ? picked : picked->cast(red->dtype());
    return red->replace_src(std::move(src));
  }
  return nullptr;
}

}  // namespace

const PatternMatcher& OneHotReduceRules() {
  static const PatternMatcher rules({
      {Pat::Op(Ops::kReduce, {Pat::Var("x")}, "red").allow_any_len(), CollapseOneHot},
  });
  return rules;
}

}  // namespace tg::compiler
