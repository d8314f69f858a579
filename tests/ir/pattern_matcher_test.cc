#include "ir/pattern_matcher.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tg {
namespace {

using M = const Match&;

UOpRef Var(const char* name) { return UOp::Variable(name, 0, 100); }

TEST(PatternMatcherTest, NamedCapturesAndConstValues) {
  PatternMatcher pm({
      {Pat::Var("x") + 0, [](M m) { return m["x"]; }},  // x+0 -> x
      {Pat::Var("x") * Pat::Cvar("c"), [](M m) { return m["x"] + m["c"]; }},
  });
  UOpRef x = Var("x");
  EXPECT_EQ(pm.Rewrite(x + 0).get(), x.get());
  EXPECT_EQ(pm.Rewrite(x * 3).get(), (x + 3).get());
  EXPECT_EQ(pm.Rewrite(x + 1), nullptr);
  EXPECT_EQ(pm.Rewrite(x * x), nullptr);  // Cvar needs a CONST
}

TEST(PatternMatcherTest, ConstMatchesAcrossKinds) {
  PatternMatcher pm({{Pat::Var("x") * 0, [](M m) { return m["x"]->const_like(0); }}});
  UOpRef f = UOp::Make(Ops::kDefineVar, dtypes::float32, {}, std::string("f"));
  EXPECT_NE(pm.Rewrite(f * 0.0), nullptr);  // int 0 pattern matches float 0.0
  EXPECT_EQ(pm.Rewrite(f * 0.5), nullptr);
}

TEST(PatternMatcherTest, CommutativeOpsMatchBothOrders) {
  PatternMatcher pm({{Pat::Var("x") + Pat::Cvar("c"), [](M m) { return m["c"]; }}});
  UOpRef x = Var("x");
  EXPECT_EQ(pm.Rewrite(x + 5)->const_int(), 5);
  EXPECT_EQ(pm.Rewrite(5 + x)->const_int(), 5);
  // Op() spells out an order and keeps it.
  PatternMatcher ordered({{Pat::Op(Ops::kAdd, {Pat::Var("x"), Pat::Cvar("c")}), [](M m) { return m["c"]; }}});
  EXPECT_NE(ordered.Rewrite(x + 5), nullptr);
  EXPECT_EQ(ordered.Rewrite(5 + x), nullptr);
  // Non-commutative algebra keeps its order too.
  PatternMatcher mod({{Pat::Var("x") % Pat::Cvar("c"), [](M m) { return m["c"]; }}});
  EXPECT_EQ(mod.Rewrite(UOp::Const(dtypes::int32, 5) % x), nullptr);
}

TEST(PatternMatcherTest, RepeatedNameMustBindTheSameNode) {
  PatternMatcher pm({{Pat::Var("x") + Pat::Var("x"), [](M m) { return m["x"] * 2; }}});
  UOpRef x = Var("x"), y = Var("y");
  EXPECT_EQ(pm.Rewrite(x + x).get(), (x * 2).get());
  EXPECT_EQ(pm.Rewrite(x + y), nullptr);
}

TEST(PatternMatcherTest, CommutativeBacktrackingDropsStaleCaptures) {
  // (x*c) + x: the first order binds x to the MUL and fails; the swapped order must not see that binding.
  PatternMatcher pm({{Pat::Var("x") * Pat::Cvar("c") + Pat::Var("x"), [](M m) { return m["x"] * (m["c"] + 1); }}});
  UOpRef x = Var("x");
  UOpRef out = pm.Rewrite(x + x * 3);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->src(0).get(), x.get());
}

TEST(PatternMatcherTest, OpSetsDtypesAnyLenAndCtx) {
  struct Counter {
    int calls = 0;
  };
  PatternMatcher pm({
      {Pat::Ops_({Ops::kSink, Ops::kNoop}, {Pat::Var("first")}, "s").allow_any_len(),
       [](M m) {
         ++m.ctx<Counter>().calls;
         return m["first"];
       }},
      {Pat::Var("x").with_dtype([](DType d) { return d.is_float(); }).named("f").cast(),
       [](M m) { return m["f"]; }},
  });
  UOpRef a = Var("a"), b = Var("b");
  Counter counter;
  EXPECT_EQ(pm.Rewrite(UOp::Sink({a, b}), &counter).get(), a.get());
  EXPECT_EQ(counter.calls, 1);
  EXPECT_EQ(pm.Rewrite(a->cast(dtypes::float32)), nullptr);  // int source: dtype predicate fails
  UOpRef f = a->cast(dtypes::float32);
  EXPECT_EQ(pm.Rewrite(f->cast(dtypes::float16)).get(), f.get());
}

TEST(PatternMatcherTest, MissingCaptureAndCtxThrow) {
  PatternMatcher pm({{Pat::Var("x"), [](M m) { return m["nope"]; }}});
  EXPECT_THROW(pm.Rewrite(Var("x")), Error);
  PatternMatcher no_ctx({{Pat::Var("x"), [](M m) { return m.ctx<int>() ? m["x"] : nullptr; }}});
  EXPECT_THROW(no_ctx.Rewrite(Var("x")), Error);
}

TEST(PatternMatcherTest, FirstMatchingRuleWinsAndConcatenates) {
  PatternMatcher first({{Pat::Var("x") + 1, [](M m) { return m["x"]->const_like(1); }}});
  PatternMatcher second({{Pat::Var("x") + Pat::Var("y"), [](M m) { return m["x"]->const_like(2); }}});
  UOpRef x = Var("x");
  EXPECT_EQ((first + second).Rewrite(x + 1)->const_int(), 1);
  EXPECT_EQ((second + first).Rewrite(x + 1)->const_int(), 2);
  EXPECT_EQ((first + second).size(), 2u);
  // A callback returning nullptr passes to the next rule.
  PatternMatcher decline({{Pat::Var("x") + 1, [](M) -> UOpRef { return nullptr; }}});
  EXPECT_EQ((decline + second).Rewrite(x + 1)->const_int(), 2);
}

// Folds ADD/MUL of two CONSTs; enough to watch graph_rewrite reach fixed points.
const PatternMatcher& FoldRules() {
  static const PatternMatcher pm({
      {Pat::Cvar("a") + Pat::Cvar("b"), [](M m) { return m["a"]->const_like(m["a"]->const_int() + m["b"]->const_int()); }},
      {Pat::Cvar("a") * Pat::Cvar("b"), [](M m) { return m["a"]->const_like(m["a"]->const_int() * m["b"]->const_int()); }},
      {(Pat::Var("x") + Pat::Cvar("a")) + Pat::Cvar("b"), [](M m) { return m["x"] + (m["a"] + m["b"]); }},
  });
  return pm;
}

TEST(GraphRewriteTest, RewritesToAFixedPoint) {
  UOpRef x = Var("x");
  UOpRef c = UOp::Const(dtypes::index, 2);
  UOpRef e = ((x + (c * 3)) + (c + 4)) + 5;  // needs folds below, then the reassociation, then folds again
  UOpRef out = graph_rewrite(e, FoldRules());
  EXPECT_EQ(out.get(), (x + 17).get()) << out->str();
}

TEST(GraphRewriteTest, SharedSubgraphsRewriteOnceAndStayShared) {
  int calls = 0;
  PatternMatcher counting({{Pat::Var("x") * 1, [&calls](M m) {
                              ++calls;
                              return m["x"];
                            }}});
  UOpRef x = Var("x");
  UOpRef shared = x * 1;
  UOpRef e = UOp::Sink({shared + shared, shared * shared, shared});
  UOpRef out = graph_rewrite(e, counting);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out.get(), UOp::Sink({x + x, x * x, x}).get());
}

TEST(GraphRewriteTest, UnchangedGraphReturnsTheSameRoot) {
  UOpRef x = Var("x");
  UOpRef e = (x * x) + x;
  EXPECT_EQ(graph_rewrite(e, FoldRules()).get(), e.get());
}

TEST(GraphRewriteTest, DeepGraphDoesNotOverflowTheStack) {
  UOpRef x = Var("x");
  UOpRef chain = x;
  for (int i = 0; i < 100000; ++i) chain = (chain * 1) + 0;  // 200000 levels deep
  PatternMatcher identities({
      {Pat::Var("x") * 1, [](M m) { return m["x"]; }},  // x*1 -> x
      {Pat::Var("x") + 0, [](M m) { return m["x"]; }},  // x+0 -> x
  });
  EXPECT_EQ(graph_rewrite(chain, identities).get(), x.get());
  UOpRef sum = x;
  for (int i = 0; i < 100000; ++i) sum = sum + 1;
  UOpRef folded = graph_rewrite(sum, FoldRules());
  EXPECT_EQ(folded.get(), (x + 100000).get());
}

}  // namespace
}  // namespace tg
