// The CI slice of symbolic-simplifier fuzzing: fixed seeds, brute force over every variable value.
#include "gtest/gtest.h"
#include "ir/symbolic.h"
#include "tests/fuzz/symbolic_fuzz.h"

namespace tg::fuzz {
namespace {

TEST(SymbolicFuzzTest, SimplifyKeepsValuesAndRanges) {
  int failures = 0;
  for (uint64_t seed = 1; seed <= 1200 && failures < 10; ++seed) {
    SymbolicCase c = GenerateSymbolic(seed);
    if (auto bad = CheckSimplify(c)) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ": " << *bad;
    }
  }
}

// The interpreter itself: C semantics, so a wrong reference cannot hide a wrong simplifier.
TEST(SymbolicFuzzTest, EvalIntUsesCSemantics) {
  UOpRef x = UOp::Variable("x", -8, 8);
  std::string why;
  EXPECT_EQ(EvalInt(x / 2, {x}, {-7}, &why), -3);
  EXPECT_EQ(EvalInt(x % 2, {x}, {-7}, &why), -1);
  EXPECT_EQ(EvalInt(x % -2, {x}, {7}, &why), 1);
  EXPECT_EQ(EvalInt(maximum(x, 3), {x}, {-7}, &why), 3);
  EXPECT_EQ(EvalInt(lt(x, 0)->where(x, -x), {x}, {-7}, &why), -7);
  EXPECT_FALSE(EvalInt(x / (x - x), {x}, {1}, &why).has_value());
}

}  // namespace
}  // namespace tg::fuzz
