// SimplifyGatedIndices: an index behind a gate is simplified over the variable ranges the gate allows,
// and stays equal to the original wherever the gate holds (brute force over every point).
#include "compiler/codegen/gated_index.h"

#include <random>

#include "gtest/gtest.h"
#include "ir/symbolic.h"
#include "tests/fuzz/symbolic_fuzz.h"

namespace tg::compiler {
namespace {

UOpRef C(int64_t v) { return UOp::Const(dtypes::index, v); }

UOpRef Gated(const UOpRef& idx, const UOpRef& gate) {
  UOpRef buf = UOp::Make(Ops::kDefineGlobal, dtypes::float32, {}, int64_t{0});
  return UOp::Make(Ops::kIndex, dtypes::float32, {buf, idx, gate});
}

// The index SimplifyGatedIndices leaves in the INDEX (idx, gate).
UOpRef After(const UOpRef& idx, const UOpRef& gate) {
  UOpRef sink = SimplifyGatedIndices(UOp::Sink({Gated(idx, gate)}));
  return sink->src(0)->src(1);
}

int DivModCount(const UOpRef& u) {
  int n = 0;
  for (const UOpRef& s : u->toposort()) n += s->op() == Ops::kIdiv || s->op() == Ops::kMod;
  return n;
}

// Every point of |vars| where |gate| is true gives |a| == |b|; false with the point printed otherwise.
::testing::AssertionResult AgreeWhereGated(const UOpRef& a, const UOpRef& b, const UOpRef& gate,
                                           const std::vector<UOpRef>& vars) {
  std::vector<int64_t> at;
  for (const UOpRef& v : vars) at.push_back(v->vmin());
  for (;;) {
    std::string why;
    auto g = fuzz::EvalInt(gate, vars, at, &why);
    auto x = fuzz::EvalInt(a, vars, at, &why);
    if (g && *g != 0 && x) {
      auto y = fuzz::EvalInt(b, vars, at, &why);
      if (!y || *y != *x) {
        std::string point;
        for (int64_t v : at) point += " " + std::to_string(v);
        return ::testing::AssertionFailure() << "differs at" << point << ": " << *x << " vs "
                                             << (y ? std::to_string(*y) : why) << "\n" << b->str();
      }
    }
    size_t i = 0;
    while (i < at.size() && at[i] == vars[i]->vmax()) at[i] = vars[i]->vmin(), ++i;
    if (i == at.size()) return ::testing::AssertionSuccess();
    ++at[i];
  }
}

// The third source of a concatenation along a reduce axis: r in [512, 768) reads (r - 512)'s element
// of a (4, 128, 64)-shaped permuted buffer. Unknown r >= 512, the divisions cannot fold.
TEST(GatedIndex, ConcatenationGateFoldsTheShiftedIndex) {
  UOpRef r = UOp::Range(768, 0), g = UOp::Special("gidx0", 8);
  UOpRef x = r + g * 32768 + C(-512);
  UOpRef idx = Simplify((x % 64) * 128 + (x / 64) % 4 * 8192 + (x / 256) % 128 + (x / 32768) * 32768);
  UOpRef gate = lt(C(511), r);
  UOpRef simpler = After(idx, gate);
  EXPECT_LT(DivModCount(simpler), DivModCount(idx)) << simpler->str();
  EXPECT_TRUE(AgreeWhereGated(idx, simpler, gate, {r, g}));
}

// A gate on a sum (the output row of an upcast tile) bounds the launch variable in it.
TEST(GatedIndex, GateOnASumBoundsItsVariables) {
  UOpRef g = UOp::Special("gidx0", 48), r = UOp::Range(2, 1);
  UOpRef row = g * 16 + r * 8 + C(3);
  UOpRef idx = Simplify((row + C(-512)) % 64 + ((row + C(-512)) / 64) % 4 * 8192);
  UOpRef gate = lt(C(511), row);
  UOpRef simpler = After(idx, gate);
  EXPECT_LT(DivModCount(simpler), DivModCount(idx)) << simpler->str();
  EXPECT_TRUE(AgreeWhereGated(idx, simpler, gate, {g, r}));
}

TEST(GatedIndex, UngatedAndLaneMaskedIndicesStay) {
  UOpRef r = UOp::Range(768, 0);
  UOpRef idx = Simplify((r + C(-512)) % 64);
  EXPECT_EQ(After(idx, UOp::Const(dtypes::bool_, true)), idx);
  UOpRef lanes = UOp::Make(Ops::kVectorize, dtypes::bool_.vec(2), {lt(C(511), r), lt(C(600), r)});
  EXPECT_EQ(After(idx, lanes), idx);
}

TEST(GatedIndex, AGateThatNeverHoldsLeavesTheIndex) {
  UOpRef r = UOp::Range(16, 0);
  UOpRef idx = Simplify((r + C(-8)) / 4);
  UOpRef never = logical_and(lt(C(12), r), lt(r, C(10)));
  EXPECT_EQ(After(idx, never), idx);
}

// Random expressions under random gates (one or two clauses, each a bound on a small sum of the
// expression's variables): the simplified index equals the original wherever the gate holds.
TEST(GatedIndex, RandomExpressionsUnderRandomGates) {
  std::mt19937_64 rng(1234);
  int checked = 0, changed = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    fuzz::SymbolicCase c = fuzz::GenerateSymbolic(seed);
    if (c.vars.empty()) continue;
    auto clause = [&] {
      UOpRef sum = C(static_cast<int64_t>(rng() % 5) - 2);
      for (const UOpRef& v : c.vars)
        if (rng() % 2) sum = sum + v * C(static_cast<int64_t>(rng() % 7) - 3);
      int64_t bound = static_cast<int64_t>(rng() % 21) - 10;
      return rng() % 2 ? lt(sum, C(bound)) : lt(C(bound), sum);
    };
    UOpRef gate = Simplify(rng() % 2 ? clause() : logical_and(clause(), clause()));
    if (gate->is_const()) continue;
    UOpRef simpler = After(c.expr, gate);
    ASSERT_TRUE(AgreeWhereGated(c.expr, simpler, gate, c.vars)) << "seed " << seed;
    ++checked;
    changed += simpler != c.expr;
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(changed, 10);  // the gates do narrow: the check above is not vacuous
}

}  // namespace
}  // namespace tg::compiler
