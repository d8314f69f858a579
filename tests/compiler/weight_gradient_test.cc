// Weight gradients (reduces over batch and spatial axes whose operands are read transposed) under the
// heuristic's opts: the kernels get SIMD vectors and a register tile, and compute what direct loops
// on the host compute, at tile edges, odd sizes, padding on every side, strides, dilation and groups.
#include <cmath>
#include <random>

#include "absl/strings/str_join.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"
#include "tests/compiler/heuristic_at_width.h"
#include "tests/frontend/test_util.h"

namespace tg::compiler {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) { return testing::RandomFloats(n, seed, -1.0f, 1.0f); }

const runtime::DeviceInfo& Cpu() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << i;
}

// The only reducing kernel of |t|'s schedule.
UOpRef ReduceKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  UOpRef found;
  for (const auto& item : s.items)
    for (const UOpRef& u : item.ast->toposort())
      if (u->op() == Ops::kReduce) {
        EXPECT_FALSE(found && found != item.ast) << "more than one reduce kernel";
        found = item.ast;
      }
  EXPECT_TRUE(found) << "no reduce kernel";
  return found;
}

// The channels-last weight gradient of a convolution written as a matmul of patches (the CNN's
// 3x3 convs): dW[o][k] = sum over rows r of g[r][o] * p[r][k], stored (o, k). Both operands are
// read down their rows (transposed), and the store is strided along o.
struct GradCase {
  int64_t rows, outs, taps;
};

Tensor PatchWeightGradient(const std::vector<float>& g, const std::vector<float>& p, const GradCase& c) {
  Tensor tg_g = Tensor::from_vector(g, Shape{c.rows, c.outs}), tg_p = Tensor::from_vector(p, Shape{c.rows, c.taps});
  return tg_g.transpose().matmul(tg_p);
}

std::vector<float> HostWeightGradient(const std::vector<float>& g, const std::vector<float>& p, const GradCase& c) {
  std::vector<float> want(c.outs * c.taps, 0.0f);
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t o = 0; o < c.outs; ++o)
      for (int64_t k = 0; k < c.taps; ++k) want[o * c.taps + k] += g[r * c.outs + o] * p[r * c.taps + k];
  return want;
}

std::string OptsOf(const UOpRef& ast) {
  Kernel k = StartKernel(ast, Cpu());
  ApplyHeuristic(k, Target::For(Cpu()));
  std::vector<std::string> opts;
  for (const Opt& o : k.applied()) opts.push_back(o.str());
  return absl::StrJoin(opts, ", ");
}

TEST(WeightGradient, StridedStoreStillGetsVectorsAndATile) {
  // conv1's gradient: 16 outputs by 9 taps; 9 divides no vector, so the vectors run along the 16.
  GradCase c{4608, 16, 9};
  Tensor dw = PatchWeightGradient(Random(c.rows * c.outs, 1), Random(c.rows * c.taps, 2), c);
  UOpRef ast = ReduceKernelAst(dw);
  Kernel k = StartKernel(ast, Cpu());
  ApplyHeuristic(k, Target::For(Cpu()));
  int expanded = 0;
  for (const auto& axis : k.axes()) expanded += axis.type == AxisType::kUpcast;
  EXPECT_GE(expanded, 2) << "expected a vector axis and a tile over the taps: " << OptsOf(ast);
  std::string source = GenerateKernel(ast, Cpu()).source.source;
  EXPECT_NE(source.find("__attribute__((vector_size("), std::string::npos) << OptsOf(ast);
}

TEST(WeightGradient, PatchFormsMatchHostAtTileEdges) {
  // Outputs and taps that divide a vector, only half of one, a quarter, nothing; reduces long and
  // short, odd and even.
  std::vector<GradCase> cases = {{4608, 16, 9},  {4099, 16, 9},  {4608, 32, 144}, {4608, 24, 7}, {4100, 12, 5},
                                 {513, 16, 9},   {4608, 16, 144}, {6000, 8, 3},    {4097, 5, 16}, {4096, 48, 27}};
  uint32_t seed = 10;
  for (const GradCase& c : cases) {
    auto g = Random(c.rows * c.outs, seed++), p = Random(c.rows * c.taps, seed++);
    SCOPED_TRACE(::testing::Message() << c.rows << "x" << c.outs << "x" << c.taps << " opts "
                                      << OptsOf(ReduceKernelAst(PatchWeightGradient(g, p, c))));
    ExpectClose(PatchWeightGradient(g, p, c).to_vector<float>(), HostWeightGradient(g, p, c), 2e-4f);
  }
}

// 9 taps where masked vectors are one instruction: the 32 output channels take whole vectors,
// unpadded, and the taps the tile's rows; padding the taps to 16 lanes (7 masked) ran conv1's
// gradient 2.4x slower (W9).
TEST(WeightGradient, TapsAreNotPaddedWhereTheChannelsFillWholeVectors) {
  GradCase c{4608, 32, 9};
  UOpRef ast = ReduceKernelAst(PatchWeightGradient(Random(c.rows * c.outs, 1), Random(c.rows * c.taps, 2), c));
  Kernel k = HeuristicAtWidth(ast, 64, true);
  ASSERT_FALSE(k.applied().empty());
  for (const Opt& o : k.applied()) EXPECT_NE(o.op, OptOp::kPadTo) << o.str();
  EXPECT_EQ(k.applied().front().op, OptOp::kUpcast) << k.applied().front().str();
  EXPECT_EQ(k.applied().front().amount, 16) << k.applied().front().str();
}

// A Linear layer's weight gradient behind a ReLU, as an MLP's backward fuses it: dW[o][k] = sum over
// rows r of (h[r][o] + bias[o] > 0 ? up[r][o] : 0) * x[r][k]. The activation's backward moves with
// o only, the input with k only.
struct ReluGradCase {
  int64_t rows, outs, ins;
};

Tensor ReluWeightGradient(const std::vector<float>& h, const std::vector<float>& bias, const std::vector<float>& up,
                          const std::vector<float>& x, const ReluGradCase& c) {
  Tensor pre = Tensor::from_vector(h, Shape{c.rows, c.outs}) + Tensor::from_vector(bias, Shape{c.outs});
  Tensor g = (pre > 0.0f).where(Tensor::from_vector(up, Shape{c.rows, c.outs}), 0.0f);
  return g.transpose().matmul(Tensor::from_vector(x, Shape{c.rows, c.ins}));
}

std::vector<float> HostReluWeightGradient(const std::vector<float>& h, const std::vector<float>& bias,
                                          const std::vector<float>& up, const std::vector<float>& x,
                                          const ReluGradCase& c) {
  std::vector<float> want(c.outs * c.ins, 0.0f);
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t o = 0; o < c.outs; ++o) {
      float g = h[r * c.outs + o] + bias[o] > 0.0f ? up[r * c.outs + o] : 0.0f;
      for (int64_t k = 0; k < c.ins; ++k) want[o * c.ins + k] += g * x[r * c.ins + k];
    }
  return want;
}

// The activation's backward is the costly operand: vectors along o compute it once per vector of
// outputs, where vectors along the stored k would compute it lane by lane for every vector of k
// (measured on W5's 784-input layer: 1.9 -> 0.6 ms). With 16 inputs it stays fused (with more, the
// scheduler stores it first: compiler/schedule/fusion_rules.h). For AVX2's and AVX-512's widths, on
// two cores, whatever CPU runs the test.
TEST(WeightGradient, VectorsGoAlongTheAxisTheActivationBackwardMovesWith) {
  ReluGradCase c{128, 512, 16};
  Tensor dw = ReluWeightGradient(Random(c.rows * c.outs, 1), Random(c.outs, 2), Random(c.rows * c.outs, 3),
                                 Random(c.rows * c.ins, 4), c);
  UOpRef ast = ReduceKernelAst(dw);
  for (int vector_bytes : {32, 64}) {
    Kernel k = HeuristicAtWidth(ast, vector_bytes);
    ASSERT_FALSE(k.applied().empty());
    const Opt& first = k.applied().front();
    EXPECT_EQ(first.op, OptOp::kUpcast) << vector_bytes;
    EXPECT_EQ(first.axis, 0) << "vectors along the stored inputs axis, not the activation's outputs: " << first.str();
    EXPECT_EQ(first.amount, vector_bytes / 4);
  }
}

TEST(WeightGradient, ReluBackwardFormsMatchHost) {
  std::vector<ReluGradCase> cases = {{128, 512, 96}, {128, 512, 784}, {100, 256, 40}, {64, 128, 10}, {33, 48, 17}};
  uint32_t seed = 50;
  for (const ReluGradCase& c : cases) {
    auto h = Random(c.rows * c.outs, seed++), bias = Random(c.outs, seed++), up = Random(c.rows * c.outs, seed++);
    auto x = Random(c.rows * c.ins, seed++);
    Tensor dw = ReluWeightGradient(h, bias, up, x, c);
    SCOPED_TRACE(::testing::Message() << c.rows << "x" << c.outs << "x" << c.ins << " opts "
                                      << OptsOf(ReduceKernelAst(dw)));
    ExpectClose(dw.to_vector<float>(), HostReluWeightGradient(h, bias, up, x, c), 2e-4f);
  }
}

// A 2-D convolution's weight gradient through autograd against direct loops: pads are (top, bottom,
// left, right).
struct ConvCase {
  int64_t batch, cin, h, w, cout, kh, kw, groups, stride, dilation;
  std::array<int64_t, 4> pad;
};

std::vector<float> HostConvWeightGradient(const std::vector<float>& x, const std::vector<float>& r, const ConvCase& c,
                                          int64_t oh, int64_t ow) {
  int64_t per_group_in = c.cin / c.groups, per_group_out = c.cout / c.groups;
  std::vector<float> dw(c.cout * per_group_in * c.kh * c.kw, 0.0f);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t o = 0; o < c.cout; ++o)
      for (int64_t ci = 0; ci < per_group_in; ++ci)
        for (int64_t ky = 0; ky < c.kh; ++ky)
          for (int64_t kx = 0; kx < c.kw; ++kx)
            for (int64_t y = 0; y < oh; ++y)
              for (int64_t xx = 0; xx < ow; ++xx) {
                int64_t iy = y * c.stride + ky * c.dilation - c.pad[0], ix = xx * c.stride + kx * c.dilation - c.pad[2];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                int64_t channel = (o / per_group_out) * per_group_in + ci;
                dw[((o * per_group_in + ci) * c.kh + ky) * c.kw + kx] +=
                    r[((b * c.cout + o) * oh + y) * ow + xx] * x[((b * c.cin + channel) * c.h + iy) * c.w + ix];
              }
  return dw;
}

TEST(WeightGradient, ConvolutionsMatchHost) {
  std::vector<ConvCase> cases = {
      {16, 1, 28, 28, 16, 3, 3, 1, 1, 1, {0, 0, 0, 0}},   // the CNN's first conv
      {8, 16, 14, 14, 16, 3, 3, 1, 1, 1, {1, 1, 1, 1}},   // small channels, padding 1
      {4, 8, 13, 11, 32, 3, 3, 1, 1, 1, {2, 0, 1, 3}},    // odd sizes, a different pad on every side
      {4, 6, 17, 15, 12, 3, 3, 1, 2, 1, {1, 1, 0, 1}},    // stride 2
      {4, 4, 16, 16, 8, 3, 3, 1, 1, 2, {2, 2, 2, 2}},     // dilation 2
      {4, 16, 12, 12, 16, 3, 3, 4, 1, 1, {1, 1, 1, 1}},   // groups of 4 channels
      {4, 8, 10, 10, 8, 3, 3, 8, 1, 1, {1, 1, 1, 1}},     // depthwise
      {2, 3, 9, 9, 20, 5, 5, 1, 1, 1, {2, 2, 2, 2}},      // 5x5, 20 outputs
  };
  uint32_t seed = 100;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "batch " << c.batch << " cin " << c.cin << " " << c.h << "x" << c.w << " cout "
                                      << c.cout << " groups " << c.groups << " stride " << c.stride << " dilation "
                                      << c.dilation);
    auto xd = Random(c.batch * c.cin * c.h * c.w, seed++);
    auto wd = Random(c.cout * (c.cin / c.groups) * c.kh * c.kw, seed++);
    Tensor x = Tensor::from_vector(xd, Shape{c.batch, c.cin, c.h, c.w});
    Tensor w = Tensor::from_vector(wd, Shape{c.cout, c.cin / c.groups, c.kh, c.kw}).requires_grad(true);
    Tensor y = x.conv2d(w, std::nullopt, c.groups, c.stride, c.dilation, {c.pad[2], c.pad[3], c.pad[0], c.pad[1]});
    int64_t oh = y.shape()[2], ow = y.shape()[3];
    auto rd = Random(y.numel(), seed++);
    (y * Tensor::from_vector(rd, y.shape())).sum().backward();
    ExpectClose(w.grad().to_vector<float>(), HostConvWeightGradient(xd, rd, c, oh, ow), 2e-4f);
  }
}

}  // namespace
}  // namespace tg::compiler
