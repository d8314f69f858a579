// Long reduces into few outputs (a batch norm's per-channel sums over batch x spatial): the heuristic
// unrolls a reduce axis so the sum does not wait on one accumulator, and the kernels compute what
// direct loops on the host compute, for channel counts at and off the vector width and reduce
// extents the unroll divides unevenly or not at all.
#include <cmath>
#include <limits>

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

UOpRef ReduceKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  UOpRef found;
  for (const auto& item : s.items)
    for (const UOpRef& u : item.ast->toposort())
      if (u->op() == Ops::kReduce) found = item.ast;
  EXPECT_TRUE(found) << "no reduce kernel";
  return found;
}

Kernel HeuristicKernel(const UOpRef& ast) {
  Kernel k = StartKernel(ast, Cpu());
  ApplyHeuristic(k, Target::For(Cpu()));
  return k;
}

std::string OptsOf(const Kernel& k) {
  std::vector<std::string> opts;
  for (const Opt& o : k.applied()) opts.push_back(o.str());
  return absl::StrJoin(opts, ", ");
}

// Channels-last activations (n, h, w, c) reduced over n, h, w, as BatchNorm's statistics are.
struct ChannelCase {
  int64_t n, h, w, c;
  int64_t elements() const { return n * h * w * c; }
};

Tensor Activations(const std::vector<float>& x, const ChannelCase& c) {
  return Tensor::from_vector(x, Shape{c.n, c.h, c.w, c.c});
}

std::vector<float> HostChannelSums(const std::vector<float>& x, const ChannelCase& c, bool squares) {
  std::vector<double> acc(c.c, 0.0);
  for (int64_t i = 0; i < c.elements(); ++i) acc[i % c.c] += squares ? double{x[i]} * x[i] : x[i];
  return std::vector<float>(acc.begin(), acc.end());
}

std::vector<float> HostChannelMax(const std::vector<float>& x, const ChannelCase& c) {
  std::vector<float> out(c.c, -std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < c.elements(); ++i) out[i % c.c] = std::max(out[i % c.c], x[i]);
  return out;
}

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << i;
}

TEST(ReduceUnroll, ChannelSumsUnrollTheReduce) {
  ChannelCase c{8, 24, 24, 16};  // one vector of outputs, 4608 values each
  Tensor x = Activations(testing::RandomFloats(c.elements(), 1), c);
  Kernel k = HeuristicKernel(ReduceKernelAst(x.sum({0, 1, 2})));
  int unrolled = 0;
  for (const auto& axis : k.axes()) unrolled += axis.type == AxisType::kUnroll;
  EXPECT_EQ(unrolled, 1) << OptsOf(k);
}

TEST(ReduceUnroll, ShortReducesStayRolled) {
  ChannelCase c{1, 2, 4, 16};  // 8 values per output: nothing to overlap
  Tensor x = Activations(testing::RandomFloats(c.elements(), 2), c);
  Kernel k = HeuristicKernel(ReduceKernelAst(x.sum({0, 1, 2})));
  for (const auto& axis : k.axes()) EXPECT_NE(axis.type, AxisType::kUnroll) << OptsOf(k);
}

TEST(ReduceUnroll, ChannelReductionsMatchHost) {
  // Channels at the vector width, half and double of it, and odd; spatial extents 8 divides, that
  // only 3 or 2 divide, and primes (no unroll fits the innermost axis).
  std::vector<ChannelCase> cases = {{8, 24, 24, 16}, {4, 26, 26, 16}, {3, 12, 12, 32}, {5, 7, 7, 16},
                                    {2, 9, 15, 8},   {7, 11, 13, 5},  {16, 6, 10, 3},  {1, 29, 31, 16}};
  uint32_t seed = 10;
  for (const ChannelCase& c : cases) {
    auto data = testing::RandomFloats(c.elements(), seed++);
    Tensor x = Activations(data, c);
    SCOPED_TRACE(::testing::Message() << c.n << "x" << c.h << "x" << c.w << "x" << c.c << " opts "
                                      << OptsOf(HeuristicKernel(ReduceKernelAst(x.sum({0, 1, 2})))));
    ExpectClose(x.sum({0, 1, 2}).to_vector<float>(), HostChannelSums(data, c, false), 1e-4f);
    ExpectClose((x * x).sum({0, 1, 2}).to_vector<float>(), HostChannelSums(data, c, true), 1e-4f);
    ExpectClose(x.max({0, 1, 2}).to_vector<float>(), HostChannelMax(data, c), 0.0f);
  }
}

TEST(ReduceUnroll, ValuesTheUnrolledAxisDoesNotMoveCountEveryIteration) {
  // The reduce's value is the same in every unrolled copy: each copy still adds it once.
  EXPECT_FLOAT_EQ(Tensor::ones({1000}).sum().item<float>(), 1000.0f);
  EXPECT_FLOAT_EQ(Tensor::ones({4096}).sum().item<float>(), 4096.0f);
  EXPECT_FLOAT_EQ(Tensor::full({999}, 2.0f).sum().item<float>(), 1998.0f);
  EXPECT_FLOAT_EQ(Tensor::full({1000}, -3.0f).max().item<float>(), -3.0f);
  std::vector<float> rows = testing::RandomFloats(16, 5);
  Tensor broadcast = Tensor::from_vector(rows, Shape{16, 1}).expand({16, 1000});
  std::vector<float> got = broadcast.sum({1}).to_vector<float>();
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(got[i], rows[i] * 1000.0f, 1e-5f * std::abs(rows[i]) * 1000.0f) << i;
}

TEST(ReduceUnroll, BatchNormTrainingStatisticsMatchHost) {
  // mean and biased variance per channel, as BatchNorm's training forward computes them
  ChannelCase c{8, 24, 24, 16};
  auto data = testing::RandomFloats(c.elements(), 99);
  Tensor x = Activations(data, c);
  Tensor mean = x.mean({0, 1, 2});
  Tensor var = ((x - mean) * (x - mean)).mean({0, 1, 2});
  std::vector<float> sums = HostChannelSums(data, c, false);
  double count = static_cast<double>(c.n * c.h * c.w);
  std::vector<double> want_mean(c.c), want_var(c.c, 0.0);
  for (int64_t ch = 0; ch < c.c; ++ch) want_mean[ch] = sums[ch] / count;
  for (int64_t i = 0; i < c.elements(); ++i) {
    double d = data[i] - want_mean[i % c.c];
    want_var[i % c.c] += d * d / count;
  }
  ExpectClose(mean.to_vector<float>(), std::vector<float>(want_mean.begin(), want_mean.end()), 1e-4f);
  ExpectClose(var.to_vector<float>(), std::vector<float>(want_var.begin(), want_var.end()), 1e-4f);
}

}  // namespace
}  // namespace tg::compiler
