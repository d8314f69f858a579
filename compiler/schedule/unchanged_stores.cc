#include "compiler/schedule/unchanged_stores.h"

namespace tg::compiler {
namespace {

Pat Target() { return Pat::Op(Ops::kIndex, {Pat::Var("buf"), Pat::Var("i"), Pat::Var("gate")}, "target"); }

// The stored element itself, as it was before the store.
Pat Kept() { return Pat::Op(Ops::kLoad, {Pat::Op(Ops::kIndex, {Pat::Var("buf"), Pat::Var("i"), Pat::Const(true)})}); }

UOpRef StoreWhere(const Match& m, const UOpRef& store_when) {
  UOpRef gate = m["gate"]->is_const_value(true) ? store_when : logical_and(m["gate"], store_when);
  UOpRef target = UOp::Make(Ops::kIndex, m["target"]->dtype(), {m["buf"], m["i"], gate});
  return UOp::Make(Ops::kStore, dtypes::void_, {target, m["v"]});
}

}  // namespace

const PatternMatcher& UnchangedStoreRules() {
  static const PatternMatcher* rules = new PatternMatcher({
      {Pat::Op(Ops::kStore, {Target(), Pat::Var("c").where(Pat::Var("v"), Kept())}),
       [](const Match& m) { return StoreWhere(m, m["c"]); }},
      {Pat::Op(Ops::kStore, {Target(), Pat::Var("c").where(Kept(), Pat::Var("v"))}),
       [](const Match& m) { return StoreWhere(m, logical_not(m["c"])); }},
  });
  return *rules;
}

}  // namespace tg::compiler
