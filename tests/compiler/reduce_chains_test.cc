// Long vectorized reduces under the heuristic's second UNROLL (several vector loads folded per step of
// the carried accumulator): it applies to long contiguous sums and not to short rows or register tiles,
// and every shape, odd and prime lengths included, sums what a double-precision loop sums.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_join.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"
#include "tests/frontend/test_util.h"

namespace tg::compiler {
namespace {

const runtime::DeviceInfo& Cpu() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

// The heuristic's opts for each kernel of |t|'s schedule.
std::vector<std::vector<Opt>> HeuristicOpts(const Tensor& t) {
  std::vector<std::vector<Opt>> out;
  for (const auto& item : CreateSchedule({t.uop()}, {t.device()}).items) {
    Kernel k = StartKernel(item.ast, Cpu());
    ApplyHeuristic(k, Target::For(Cpu()));
    out.push_back(k.applied());
  }
  return out;
}

int Unrolls(const std::vector<Opt>& opts) {
  int n = 0;
  for (const Opt& o : opts) n += o.op == OptOp::kUnroll;
  return n;
}

std::string Text(const std::vector<Opt>& opts) {
  std::vector<std::string> out;
  for (const Opt& o : opts) out.push_back(o.str());
  return absl::StrJoin(out, ", ");
}

TEST(ReduceChains, LongContiguousSumsFoldSeveralLoadsPerStep) {
  if (!Target::For(Cpu()).vectors) GTEST_SKIP() << "the CPU renderer has no vectors";
  // 1M floats split into partials of 4096: 256 vector steps, 64 after the fold.
  // The combine of the 256 partials is 16 vector steps and keeps one UNROLL.
  std::vector<std::vector<Opt>> full = HeuristicOpts(Tensor::rand({1 << 20}).sum());
  ASSERT_EQ(full.size(), 2u);
  int most = std::max(Unrolls(full[0]), Unrolls(full[1])), least = std::min(Unrolls(full[0]), Unrolls(full[1]));
  EXPECT_EQ(most, 2) << Text(full[0]) << " / " << Text(full[1]);
  EXPECT_EQ(least, 1) << Text(full[0]) << " / " << Text(full[1]);
  // Rows of 512: 32 vector steps, too short to pay for the fold.
  std::vector<std::vector<Opt>> rows = HeuristicOpts(Tensor::rand({64, 512}).sum({1}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_LE(Unrolls(rows.front()), 1) << Text(rows.front());
}

double DoubleSum(const std::vector<float>& v, size_t begin, size_t end) {
  double s = 0;
  for (size_t i = begin; i < end; ++i) s += v[i];
  return s;
}

TEST(ReduceChains, FullSumsMatchADoubleLoopAtOddAndPrimeLengths) {
  // Powers of two, a prime (no split and no fold divides it), lengths with odd factors around the
  // fold (16 lanes x 4 loads x 64 steps = 4096) and a length of one.
  std::vector<int64_t> lengths = {1 << 20, 1000003, 3 * 65536, 4096 * 17, 4096, 4095, 262147, 1};
  uint32_t seed = 7;
  for (int64_t n : lengths) {
    auto v = testing::RandomFloats(n, seed++, -1.0f, 1.0f);
    float got = Tensor::from_vector(v, Shape{n}).sum().item<float>();
    double want = DoubleSum(v, 0, v.size());
    // float partial sums of uniform [-1, 1] values: rounding grows with sqrt of the length
    EXPECT_NEAR(got, want, 1e-5 * std::sqrt(static_cast<double>(n)) + 1e-5) << "length " << n;
  }
}

TEST(ReduceChains, RowSumsMatchADoubleLoop) {
  struct Rows {
    int64_t rows, cols;
  };
  std::vector<Rows> cases = {{3, 16384}, {7, 4096 + 16}, {2, 65536 * 3}, {5, 8191}, {1, 1 << 18}};
  uint32_t seed = 100;
  for (const Rows& c : cases) {
    auto v = testing::RandomFloats(c.rows * c.cols, seed++, -1.0f, 1.0f);
    std::vector<float> got = Tensor::from_vector(v, Shape{c.rows, c.cols}).sum({1}).to_vector<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(c.rows));
    for (int64_t r = 0; r < c.rows; ++r)
      EXPECT_NEAR(got[r], DoubleSum(v, r * c.cols, (r + 1) * c.cols), 1e-5 * std::sqrt(static_cast<double>(c.cols)) + 1e-5)
          << c.rows << "x" << c.cols << " row " << r;
  }
}

}  // namespace
}  // namespace tg::compiler
