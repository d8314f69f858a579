#include "compiler/codegen/pinned_range.h"

#include <vector>

namespace tg::compiler {
namespace {

// The conjuncts of a bool AND tree.
void Conjuncts(const UOpRef& c, std::vector<UOpRef>& out) {
  if (c->op() == Ops::kAnd && c->dtype().is_bool()) {
    Conjuncts(c->src(0), out);
    Conjuncts(c->src(1), out);
  } else {
    out.push_back(c);
  }
}

// Whether |a| is the loop variable |r| itself, or integer casts of it that keep every value of r
// (arange's index arrives cast to the compared dtype).
bool IsExactlyLoop(const UOpRef& a, const UOpRef& r) {
  const UOpRef* u = &a;
  while ((*u)->op() == Ops::kCast) {
    if (!(*u)->dtype().is_int() || (*u)->vmin() != r->vmin() || (*u)->vmax() != r->vmax()) return false;
    u = &(*u)->src(0);
  }
  return *u == r;
}

// The e of a compare of |op| with r (after casts) on side |r_side| and an integer e free of r on the other.
std::optional<UOpRef> ComparedWith(const UOpRef& compare, Ops op, int r_side, const UOpRef& r) {
  if (compare->op() != op) return std::nullopt;
  const UOpRef& a = compare->src(r_side);
  const UOpRef& e = compare->src(1 - r_side);
  if (e->dtype().is_int() && IsExactlyLoop(a, r) && !Mentions(e, r)) return e;
  return std::nullopt;
}

// !c, spelled c != true.
std::optional<UOpRef> Negated(const UOpRef& u) {
  if (u->op() == Ops::kCmpNe && u->src(1)->is_const_value(true) && u->src(0)->dtype().is_bool()) return u->src(0);
  return std::nullopt;
}

Pin PinTo(const UOpRef& e, const UOpRef& r, const std::vector<UOpRef>& pinning) {
  UOpRef valid = logical_and(logical_not(lt(e, e->const_like(int64_t{0}))), lt(e, e->const_like(r->src(0)->const_int())));
  Pin pin{valid, {}};
  pin.at[r.get()] = valid->where(e, e->const_like(int64_t{0}))->cast(r->dtype());
  for (const UOpRef& c : pinning) pin.at[c.get()] = c->const_like(true);
  return pin;
}

}  // namespace

bool Mentions(const UOpRef& e, const UOpRef& r) {
  for (const UOpRef& u : e->toposort())
    if (u == r) return true;
  return false;
}

std::optional<Pin> PinOf(const UOpRef& cond, const UOpRef& r) {
  if (r->op() != Ops::kRange || !r->src(0)->is_const()) return std::nullopt;
  std::vector<UOpRef> conjuncts;
  Conjuncts(cond, conjuncts);
  for (const UOpRef& c : conjuncts)
    for (int side : {0, 1})
      if (std::optional<UOpRef> e = ComparedWith(c, Ops::kCmpEq, side, r)) return PinTo(*e, r, {c});
  // e <= r <= e, as !(r < e) and !(e < r).
  for (const UOpRef& low : conjuncts) {
    std::optional<UOpRef> not_below = Negated(low);
    std::optional<UOpRef> e = not_below ? ComparedWith(*not_below, Ops::kCmpLt, 0, r) : std::nullopt;
    if (!e) continue;
    for (const UOpRef& high : conjuncts) {
      std::optional<UOpRef> not_above = Negated(high);
      std::optional<UOpRef> f = not_above ? ComparedWith(*not_above, Ops::kCmpLt, 1, r) : std::nullopt;
      if (f && *f == *e) return PinTo(*e, r, {low, high});
    }
  }
  return std::nullopt;
}

}  // namespace tg::compiler
