// How many parallel groups the CPU heuristic gives a kernel: one where the whole kernel is too little
// work for two threads (handing half of it to another core costs more than it saves), several
// where there is enough; and the one-group kernels compute what the host computes.
#include <cmath>

#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/compiler/heuristic_at_width.h"
#include "tests/frontend/test_util.h"

namespace tg::compiler {
namespace {

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.empty() ? nullptr : s.items.front().ast;
}

int64_t Groups(const Kernel& k) {
  int64_t groups = 1;
  for (const UOpRef& g : k.RangesOf(AxisType::kGlobal)) groups *= g->src(0)->const_int();
  return groups;
}

Tensor Filled(const Shape& shape, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::from_vector(testing::RandomFloats(n, seed, -1.0f, 1.0f), shape);
}

TEST(GroupCount, AVectorAddTooSmallToSplitRunsAsOneGroup) {
  Tensor sum = Filled({768}, 1) + Filled({768}, 2);
  EXPECT_EQ(Groups(HeuristicAtWidth(OnlyKernelAst(sum), 64)), 1);
}

TEST(GroupCount, EveryOutputAxisOfASmallKernelJoinsTheOneGroup) {
  // Attention's per-head reshapes: two output axes, read transposed.
  Tensor heads = Filled({64, 12}, 3).transpose() * 2.0f;
  Kernel k = HeuristicAtWidth(OnlyKernelAst(heads), 64);
  EXPECT_TRUE(k.RangesOf(AxisType::kGlobal).empty());
}

TEST(GroupCount, ASmallReduceRunsAsOneGroup) {
  Tensor rows = Filled({12, 64}, 4).sum({1});
  EXPECT_EQ(Groups(HeuristicAtWidth(OnlyKernelAst(rows), 64)), 1);
}

TEST(GroupCount, EnoughWorkForTwoThreadsIsSplit) {
  Tensor sum = Filled({1 << 16}, 5) + Filled({1 << 16}, 6);
  EXPECT_GE(Groups(HeuristicAtWidth(OnlyKernelAst(sum), 64)), 2);
  Tensor rows = Filled({256, 256}, 7).sum({1});
  EXPECT_GE(Groups(HeuristicAtWidth(OnlyKernelAst(rows), 64)), 2);
}

// Two reduces side by side in one kernel (a SwiGLU's gate and up rows against one activation) loop
// one after the other: a row costs the sum of their lengths, not the product, so a group takes as many
// rows as one 1536-long reduce needs, not two rows because 768 x 768 looked like plenty.
TEST(GroupCount, SiblingReducesAddTheirWorkUp) {
  Tensor x = Filled({768}, 10);
  Tensor gated = (Filled({2048, 768}, 11) * x).sum({1}) * (Filled({2048, 768}, 12) * x).sum({1});
  Kernel k = HeuristicAtWidth(OnlyKernelAst(gated), 64);
  EXPECT_LE(Groups(k), 2048 / 4);
  EXPECT_GE(Groups(k), 8);  // still four per core
}

TEST(GroupCount, OneGroupKernelsMatchTheHost) {
  std::vector<float> a = testing::RandomFloats(12 * 64, 8, -1.0f, 1.0f);
  std::vector<float> b = testing::RandomFloats(12 * 64, 9, -1.0f, 1.0f);
  Tensor ta = Tensor::from_vector(a, Shape{12, 64}), tb = Tensor::from_vector(b, Shape{64, 12});
  std::vector<float> mixed = (ta + tb.transpose()).exp().to_vector<float>();
  std::vector<float> sums = (ta * 3.0f).sum({1}).to_vector<float>();
  ASSERT_EQ(mixed.size(), 12u * 64);
  ASSERT_EQ(sums.size(), 12u);
  for (int64_t r = 0; r < 12; ++r) {
    double row = 0;
    for (int64_t c = 0; c < 64; ++c) {
      EXPECT_NEAR(mixed[r * 64 + c], std::exp(a[r * 64 + c] + b[c * 12 + r]), 1e-5) << r << "," << c;
      row += 3.0 * a[r * 64 + c];
    }
    EXPECT_NEAR(sums[r], row, 1e-4) << r;
  }
}

}  // namespace
}  // namespace tg::compiler
