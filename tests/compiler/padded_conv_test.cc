// Convolutions whose padding gates the vector axis: the input loads become masked vector loads
// (whole vectors inside, only the lanes inside at the border), and the results equal direct loops
// for padding on every side, strides, dilation and groups, at widths that leave vector tails.
#include <array>
#include <cmath>
#include <random>

#include "compiler/codegen/codegen.h"
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

// pads are (top, bottom, left, right)
struct ConvCase {
  int64_t batch, cin, h, w, cout, k, groups, stride, dilation;
  std::array<int64_t, 4> pad;
};

int64_t OutSize(int64_t in, int64_t before, int64_t after, int64_t k, int64_t stride, int64_t dilation) {
  return (in + before + after - dilation * (k - 1) - 1) / stride + 1;
}

std::vector<float> HostConv(const std::vector<float>& x, const std::vector<float>& w, const ConvCase& c) {
  int64_t oh = OutSize(c.h, c.pad[0], c.pad[1], c.k, c.stride, c.dilation);
  int64_t ow = OutSize(c.w, c.pad[2], c.pad[3], c.k, c.stride, c.dilation);
  int64_t gin = c.cin / c.groups, gout = c.cout / c.groups;
  std::vector<float> out(c.batch * c.cout * oh * ow, 0.0f);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t o = 0; o < c.cout; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          float acc = 0;
          for (int64_t ci = 0; ci < gin; ++ci)
            for (int64_t ky = 0; ky < c.k; ++ky)
              for (int64_t kx = 0; kx < c.k; ++kx) {
                int64_t iy = y * c.stride + ky * c.dilation - c.pad[0], ix = xx * c.stride + kx * c.dilation - c.pad[2];
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                int64_t channel = (o / gout) * gin + ci;
                acc += x[((b * c.cin + channel) * c.h + iy) * c.w + ix] * w[((o * gin + ci) * c.k + ky) * c.k + kx];
              }
          out[((b * c.cout + o) * oh + y) * ow + xx] = acc;
        }
  return out;
}

Tensor Conv(const Tensor& x, const Tensor& w, const ConvCase& c) {
  return x.conv2d(w, std::nullopt, c.groups, c.stride, c.dilation, {c.pad[2], c.pad[3], c.pad[0], c.pad[1]});
}

TEST(PaddedConv, MatchesHost) {
  std::vector<ConvCase> cases = {
      {2, 8, 16, 32, 16, 3, 1, 1, 1, {1, 1, 1, 1}},    // W4's shape, smaller: padding 1, 32 columns
      {2, 4, 9, 30, 8, 3, 1, 1, 1, {2, 0, 3, 1}},      // a different pad on every side, 32 output columns
      {1, 3, 7, 33, 4, 3, 1, 1, 1, {0, 1, 0, 1}},      // pad after only: 32 columns, the last lanes gated
      {2, 4, 12, 64, 8, 3, 1, 2, 1, {1, 1, 1, 1}},     // stride 2
      {2, 4, 12, 36, 8, 3, 1, 1, 2, {2, 2, 2, 2}},     // dilation 2
      {2, 8, 10, 32, 8, 3, 4, 1, 1, {1, 1, 1, 1}},     // groups
      {1, 16, 8, 16, 16, 3, 16, 1, 1, {1, 1, 1, 1}},   // depthwise, 16 columns
      {1, 2, 6, 29, 4, 5, 1, 1, 1, {2, 2, 2, 1}},      // 5x5, 27 columns (no vector divides)
      {1, 4, 6, 56, 8, 3, 1, 1, 1, {1, 1, 1, 1}},      // W4's 56 columns: padded to 64 for 16 lanes
      {1, 4, 6, 30, 8, 3, 1, 1, 1, {1, 1, 1, 1}},      // 30 columns: padded to 32 for 8 or 16 lanes
      {1, 4, 5, 60, 8, 5, 1, 1, 1, {2, 2, 2, 2}},      // 5x5 over 60 columns: padded, its columns unrolled
      {1, 32, 6, 18, 24, 3, 1, 1, 1, {1, 1, 1, 1}},    // a small feature map: 18 columns in 32 lanes
      {1, 24, 3, 9, 24, 3, 1, 1, 1, {1, 1, 1, 1}},     // 9 columns in one vector, more than half masked
      {1, 48, 6, 18, 48, 5, 48, 1, 1, {2, 2, 2, 2}},   // depthwise 5x5 on 18 columns
      {1, 64, 3, 9, 48, 1, 1, 1, 1, {0, 0, 0, 0}},     // a pointwise (1x1) convolution on 9 columns
      {2, 16, 4, 36, 16, 3, 1, 1, 1, {1, 0, 2, 1}},    // 36 columns, uneven padding
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "cin " << c.cin << " " << c.h << "x" << c.w << " cout " << c.cout << " groups "
                                      << c.groups << " stride " << c.stride << " dilation " << c.dilation << " pad "
                                      << c.pad[0] << "," << c.pad[1] << "," << c.pad[2] << "," << c.pad[3]);
    auto xd = Random(c.batch * c.cin * c.h * c.w, seed++), wd = Random(c.cout * (c.cin / c.groups) * c.k * c.k, seed++);
    Tensor x = Tensor::from_vector(xd, Shape{c.batch, c.cin, c.h, c.w});
    Tensor w = Tensor::from_vector(wd, Shape{c.cout, c.cin / c.groups, c.k, c.k});
    std::vector<float> got = Conv(x, w, c).to_vector<float>(), want = HostConv(xd, wd, c);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f * std::max(1.0f, std::abs(want[i]))) << i;
  }
}

TEST(PaddedConv, BorderLanesAreOneMaskedLoad) {
  ConvCase c{2, 8, 16, 32, 16, 3, 1, 1, 1, {1, 1, 1, 1}};
  Tensor x = Tensor::empty({c.batch, c.cin, c.h, c.w}), w = Tensor::empty({c.cout, c.cin, c.k, c.k});
  Tensor y = Conv(x, w, c);
  std::string source;
  for (const auto& item : CreateSchedule({y.uop()}, {y.device()}).items)
    if (item.kind == ScheduleItem::Kind::kKernel) source += GenerateKernel(item.ast, Cpu()).source.source;
  EXPECT_NE(source.find("_all&=_m[_l]"), std::string::npos) << source.substr(0, 6000);
}

// A convolution whose input is scaled per channel (a squeeze-excitation gate fused into PP-OCR's
// detector head, x + x * s[c]): the scale is the one load contiguous along the input channels, while
// the input itself is gathered along them (one channel plane apart). The vectors go along the
// output columns, narrower than the widest vector where that does not divide them (72 columns,
// AVX-512's 16 lanes), not along the channels the input gathers. For AVX2's and AVX-512's widths,
// whatever CPU runs the test.
TEST(PaddedConv, ChannelScaledInputKeepsVectorsOnTheColumns) {
  ConvCase c{1, 96, 24, 72, 24, 3, 1, 1, 1, {1, 1, 1, 1}};
  Tensor x = Tensor::empty({c.batch, c.cin, c.h, c.w}), s = Tensor::empty({1, c.cin, 1, 1});
  Tensor w = Tensor::empty({c.cout, c.cin, c.k, c.k});
  Tensor y = Conv(x + x * s, w, c);
  UOpRef ast;
  for (const auto& item : CreateSchedule({y.uop()}, {y.device()}).items)
    for (const UOpRef& u : item.ast->toposort())
      if (u->op() == Ops::kReduce) ast = item.ast;
  ASSERT_TRUE(ast) << "no reduce kernel";
  for (int vector_bytes : {32, 64}) {
    Kernel k = HeuristicAtWidth(ast, vector_bytes);
    ASSERT_FALSE(k.applied().empty());
    const Opt& first = k.applied().front();
    EXPECT_EQ(first.op, OptOp::kUpcast) << vector_bytes << ": " << first.str();
    EXPECT_EQ(k.axes()[first.axis].extent(), 72 / first.amount) << "vectors along the 72 output columns: " << first.str();
  }
}

UOpRef ConvKernelAst(const ConvCase& c) {
  Tensor x = Tensor::empty({c.batch, c.cin, c.h, c.w}), w = Tensor::empty({c.cout, c.cin / c.groups, c.k, c.k});
  Tensor y = Conv(x, w, c);
  for (const auto& item : CreateSchedule({y.uop()}, {y.device()}).items)
    for (const UOpRef& u : item.ast->toposort())
      if (u->op() == Ops::kReduce) return item.ast;
  return nullptr;
}

std::string OptsText(const Kernel& k) {
  std::string s;
  for (const Opt& o : k.applied()) s += o.str() + " ";
  return s;
}

// W4's 56 columns on AVX-512: where a masked vector access is one instruction the columns are padded
// to 64 and take 16 lanes (8 of them masked in the last vector); in C, whose masked accesses test
// every lane, and on AVX2, whose 8 lanes divide 56, they are not. The 3 x 3 taps run unrolled.
TEST(PaddedConv, ColumnsPadToTheFullWidthWhereMasksAreOneInstruction) {
  UOpRef ast = ConvKernelAst({2, 16, 12, 56, 16, 3, 1, 1, 1, {1, 1, 1, 1}});
  ASSERT_TRUE(ast);
  Kernel padded = HeuristicAtWidth(ast, 64, true);
  ASSERT_GE(padded.applied().size(), 2u);
  EXPECT_EQ(padded.applied()[0].op, OptOp::kPadTo) << OptsText(padded);
  EXPECT_EQ(padded.applied()[1].op, OptOp::kUpcast) << OptsText(padded);
  EXPECT_EQ(padded.applied()[1].amount, 16) << OptsText(padded);
  int unrolled = 0;
  for (const Opt& o : padded.applied()) unrolled += o.op == OptOp::kUnroll && o.amount == 3;
  EXPECT_EQ(unrolled, 2) << "both tap axes: " << OptsText(padded);
  for (auto [vector_bytes, masked] : {std::pair{64, false}, std::pair{32, true}}) {
    Kernel k = HeuristicAtWidth(ast, vector_bytes, masked);
    for (const Opt& o : k.applied()) EXPECT_NE(o.op, OptOp::kPadTo) << vector_bytes << ": " << OptsText(k);
  }
}

// A small feature map (PP-OCR's detector at 1/16 scale: 6 x 18) is vectorized along its 18 columns,
// padded to 32 lanes where masks are one instruction: 56% of the FMA width busy, where no unpadded
// vector of 4 or more lanes divides 18 and the kernel ran scalar. 9 columns still fill over half of
// 16 lanes; 7 would not, and stay unpadded.
TEST(PaddedConv, SmallFeatureMapsPadWhenThatBeatsScalar) {
  for (int64_t columns : {18, 9}) {
    UOpRef ast = ConvKernelAst({1, 96, 6, columns, 24, 3, 1, 1, 1, {1, 1, 1, 1}});
    ASSERT_TRUE(ast);
    Kernel k = HeuristicAtWidth(ast, 64, true);
    ASSERT_GE(k.applied().size(), 2u) << columns;
    EXPECT_EQ(k.applied()[0].op, OptOp::kPadTo) << columns << ": " << OptsText(k);
    EXPECT_EQ(k.applied()[1].op, OptOp::kUpcast) << columns << ": " << OptsText(k);
    EXPECT_EQ(k.applied()[1].amount, 16) << columns << ": " << OptsText(k);
  }
  UOpRef narrow = ConvKernelAst({1, 96, 6, 7, 24, 3, 1, 1, 1, {1, 1, 1, 1}});
  ASSERT_TRUE(narrow);
  Kernel k = HeuristicAtWidth(narrow, 64, true);
  for (const Opt& o : k.applied()) EXPECT_NE(o.op, OptOp::kPadTo) << OptsText(k);
}

// A strided convolution gathers its input along the columns: no padding (the padded lanes would be
// gathered too) and no unrolled taps (nine copies of a gather per lane compile for seconds).
TEST(PaddedConv, StridedColumnsAreNeitherPaddedNorUnrolled) {
  UOpRef ast = ConvKernelAst({1, 32, 48, 144, 32, 3, 32, 2, 1, {1, 1, 1, 1}});  // depthwise, 72 columns
  ASSERT_TRUE(ast);
  Kernel k = HeuristicAtWidth(ast, 64, true);
  for (const Opt& o : k.applied()) {
    EXPECT_NE(o.op, OptOp::kPadTo) << OptsText(k);
    EXPECT_NE(o.op, OptOp::kUnroll) << OptsText(k);
  }
}

TEST(PaddedConv, ChannelScaledInputMatchesHost) {
  ConvCase c{1, 32, 6, 72, 8, 3, 1, 1, 1, {1, 1, 1, 1}};
  auto xd = Random(c.batch * c.cin * c.h * c.w, 11), sd = Random(c.cin, 12), wd = Random(c.cout * c.cin * c.k * c.k, 13);
  std::vector<float> scaled(xd.size());
  for (size_t i = 0; i < xd.size(); ++i) scaled[i] = xd[i] + xd[i] * sd[(i / (c.h * c.w)) % c.cin];
  Tensor x = Tensor::from_vector(xd, Shape{c.batch, c.cin, c.h, c.w});
  Tensor s = Tensor::from_vector(sd, Shape{1, c.cin, 1, 1});
  Tensor w = Tensor::from_vector(wd, Shape{c.cout, c.cin, c.k, c.k});
  std::vector<float> got = Conv(x + x * s, w, c).to_vector<float>(), want = HostConv(scaled, wd, c);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f * std::max(1.0f, std::abs(want[i]))) << i;
}

}  // namespace
}  // namespace tg::compiler
