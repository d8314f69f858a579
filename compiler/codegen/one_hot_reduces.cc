#include "compiler/codegen/one_hot_reduces.h"

#include <optional>
#include <utility>
#include <vector>

#include "ir/substitute.h"

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

bool Mentions(const UOpRef& e, const UOpRef& r) {
  for (const UOpRef& u : e->toposort())
    if (u == r) return true;
  return false;
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

// The e of a conjunct `r == e` (either side) with e an integer expression free of r.
std::optional<UOpRef> SelectedIndex(const UOpRef& conjunct, const UOpRef& r) {
  if (conjunct->op() != Ops::kCmpEq) return std::nullopt;
  for (int side : {0, 1}) {
    const UOpRef& a = conjunct->src(side);
    const UOpRef& e = conjunct->src(1 - side);
    if (e->dtype().is_int() && IsExactlyLoop(a, r) && !Mentions(e, r)) return e;
  }
  return std::nullopt;
}

bool ZeroIsIdentity(Ops op, DType dtype) {
  return op == Ops::kAdd || (op == Ops::kMax && (dtype.is_bool() || dtype.is_unsigned()));
}

// REDUCE(c ? x : 0, ranges) or REDUCE(cast(c ? x : 0), ranges) with r in ranges and `r == e` a
// conjunct of c:  valid(e) ? (c ? x : 0)[r := e, that conjunct := true] : 0, over the other ranges.
UOpRef CollapseOneHot(const Match& m) {
  const UOpRef& red = m["red"];
  const Ops op = red->arg_as<ReduceArg>().op;
  if (!ZeroIsIdentity(op, red->dtype())) return nullptr;
  const UOpRef& body = red->src(0);
  const UOpRef& select = body->op() == Ops::kCast ? body->src(0) : body;
  if (select->op() != Ops::kWhere || !select->src(2)->is_const_value(int64_t{0})) return nullptr;
  std::vector<UOpRef> conjuncts;
  Conjuncts(select->src(0), conjuncts);
  for (size_t i = 1; i < red->src().size(); ++i) {
    const UOpRef& r = red->src(i);
    if (r->op() != Ops::kRange || !r->src(0)->is_const()) continue;
    for (const UOpRef& conjunct : conjuncts) {
      std::optional<UOpRef> e = SelectedIndex(conjunct, r);
      if (!e) continue;
      UOpRef valid = logical_and(logical_not(lt(*e, (*e)->const_like(int64_t{0}))),
                                 lt(*e, (*e)->const_like(r->src(0)->const_int())));
      UOpRef at = valid->where(*e, (*e)->const_like(int64_t{0}))->cast(r->dtype());
      UOpRef picked = Substitute(body, {{conjunct.get(), conjunct->const_like(true)}, {r.get(), at}});
      picked = valid->where(picked, picked->const_like(int64_t{0}));
      std::vector<UOpRef> src{picked};
      for (size_t j = 1; j < red->src().size(); ++j)
        if (j != i) src.push_back(red->src(j));
      if (src.size() == 1) return picked->dtype() == red->dtype() ? picked : picked->cast(red->dtype());
      return red->replace_src(std::move(src));
    }
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
