// Codegen: opts legality, and kernels optimized by the heuristic (vectorized, unrolled, tiled)
// computing the same values as the unoptimized reference.
#include <algorithm>
#include <cmath>
#include <random>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

const runtime::DeviceInfo& Cpu() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

TEST(Opts, IllegalOptsAreErrorsThatSayWhy) {
  Tensor a = Tensor::rand({6, 10});
  Kernel k(OnlyKernelAst(a.sum({1})));
  ASSERT_EQ(k.axes().size(), 2u);
  EXPECT_EQ(k.axes()[1].type, AxisType::kReduce);
  EXPECT_THROW(k.Apply({OptOp::kUpcast, 0, 4}), Error);   // 4 does not divide 6
  EXPECT_THROW(k.Apply({OptOp::kUnroll, 0, 2}), Error);   // axis 0 is not a reduce
  EXPECT_THROW(k.Apply({OptOp::kUpcast, 1, 2}), Error);   // axis 1 is a reduce
  EXPECT_THROW(k.Apply({OptOp::kUpcast, 7, 2}), Error);   // no such axis
  k.Apply({OptOp::kUnroll, 1, 5});
  EXPECT_EQ(k.axes().size(), 3u);
  EXPECT_EQ(k.axes().back().type, AxisType::kUnroll);
  EXPECT_EQ(k.axes().back().extent(), 5);
}

TEST(Opts, StrideReadsIndexMath) {
  Tensor a = Tensor::rand({8, 16});
  Kernel k(OnlyKernelAst(a.transpose() + 1));
  UOpRef store_index = k.ast()->src(0)->src(0)->src(1);
  EXPECT_EQ(Kernel::Stride(store_index, k.axes()[0].range), 8);
  EXPECT_EQ(Kernel::Stride(store_index, k.axes()[1].range), 1);
}

TEST(Heuristic, MatmulGetsARegisterTileAndVectors) {
  Tensor a = Tensor::rand({64, 48}), b = Tensor::rand({48, 64});
  Kernel k(OnlyKernelAst(a.matmul(b)));
  ApplyHeuristic(k, Target::For(Cpu()));
  int expanded = 0;
  for (const auto& axis : k.axes()) expanded += axis.type == AxisType::kUpcast;
  EXPECT_GE(expanded, 2) << "expected a vector axis plus a row tile";
  std::string source = GenerateKernel(OnlyKernelAst(a.matmul(b)), Cpu()).source.source;
  EXPECT_NE(source.find("__attribute__((vector_size("), std::string::npos) << source;
}

// Each case: the optimized kernel equals the NOOPT result computed lane by lane on the host.
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::abs(want[i]))) << i;
}

TEST(Heuristic, VectorizedElementwiseMatchesHost) {
  auto x = Random(32 * 64, 1), y = Random(64, 2);
  Tensor tx = Tensor::from_vector(x, Shape{32, 64}), ty = Tensor::from_vector(y, Shape{64});
  std::vector<float> got = ((tx * ty + 1).relu().maximum(tx) - ty.exp()).to_vector<float>();
  std::vector<float> want(x.size());
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 64; ++j) {
      float v = x[i * 64 + j] * y[j] + 1;
      want[i * 64 + j] = std::max(std::max(v, 0.0f), x[i * 64 + j]) - std::exp(y[j]);
    }
  ExpectClose(got, want, 1e-5f);
}

TEST(Heuristic, TiledMatmulMatchesHost) {
  const int n = 64, k = 80, m = 96;
  auto a = Random(n * k, 3), b = Random(k * m, 4);
  Tensor c = Tensor::from_vector(a, Shape{n, k}).matmul(Tensor::from_vector(b, Shape{k, m}));
  std::vector<float> got = c.to_vector<float>();
  std::vector<float> want(n * m, 0.0f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int p = 0; p < k; ++p) want[i * m + j] += a[i * k + p] * b[p * m + j];
  ExpectClose(got, want, 1e-4f);
}

TEST(Heuristic, VectorizedReductionsMatchHost) {
  auto x = Random(4096 * 4, 5);
  Tensor t = Tensor::from_vector(x, Shape{4, 4096});
  std::vector<float> sums = t.sum({1}).to_vector<float>(), maxes = t.max({1}).to_vector<float>();
  float total = t.sum().item<float>();
  double all = 0;
  for (int r = 0; r < 4; ++r) {
    double s = 0;
    float mx = -INFINITY;
    for (int c = 0; c < 4096; ++c) s += x[r * 4096 + c], mx = std::max(mx, x[r * 4096 + c]);
    EXPECT_NEAR(sums[r], s, 1e-3);
    EXPECT_EQ(maxes[r], mx);
    all += s;
  }
  EXPECT_NEAR(total, all, 1e-2);
}

TEST(Heuristic, GatedAndStridedAccessesStayCorrect) {
  auto x = Random(48 * 32, 6);
  Tensor t = Tensor::from_vector(x, Shape{48, 32});
  // A transpose (strided loads), a pad (gated loads) and a flip, all under a vector axis.
  std::vector<float> got = (t.transpose().pad({{0, 0}, {16, 0}}).flip({1}) * 2).to_vector<float>();
  ASSERT_EQ(got.size(), 32u * 64u);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 64; ++j) {
      int src = 63 - j - 16;  // column of the padded transpose before the flip
      float want = src >= 0 ? x[src * 32 + i] * 2 : 0.0f;
      ASSERT_EQ(got[i * 64 + j], want) << i << "," << j;
    }
}

// Index math is int64 when a buffer of the kernel has more elements than int32 counts (chosen
// per kernel by the scheduler), int32 otherwise. Render only: buffers allocate on first use.
TEST(IndexDType, Int64WhenABufferExceedsInt32Range) {
  Tensor big = Tensor::empty({int64_t{1} << 16, int64_t{1} << 16}, dtypes::uint8);  // 4 GiB, never allocated
  std::string source = GenerateKernel(OnlyKernelAst(big.transpose() + 1), Cpu()).source.source;
  EXPECT_NE(source.find("int64_t ridx"), std::string::npos) << source.substr(0, 3000);
  EXPECT_EQ(source.find("int32_t ridx"), std::string::npos) << source.substr(0, 3000);
  Tensor small = Tensor::empty({1 << 10, 1 << 10}, dtypes::uint8);
  std::string small_source = GenerateKernel(OnlyKernelAst(small.transpose() + 1), Cpu()).source.source;
  EXPECT_EQ(small_source.find("int64_t ridx"), std::string::npos) << small_source;
}

// A cat along the vector axis in blocks the vector width divides gates each block's loads by a
// condition every lane shares: those stay whole vector loads. Blocks of other sizes (5 channels)
// gate lane by lane; both equal the host's copy.
TEST(Heuristic, CatOfAlignedBlocksLoadsWholeVectors) {
  for (int64_t channels : {16, 32, 5}) {
    SCOPED_TRACE(channels);
    const int64_t n = 2, h = 6, w = 7;
    auto x = Random(n * h * w * channels, 7);
    Tensor t = Tensor::from_vector(x, Shape{n, h, w, channels});
    std::vector<Tensor> taps;
    for (int64_t ky = 0; ky < 3; ++ky)
      for (int64_t kx = 0; kx < 3; ++kx) taps.push_back(t.shrink({{0, n}, {ky, ky + h - 2}, {kx, kx + w - 2}, {0, channels}}));
    Tensor patches = taps[0].cat(std::vector<Tensor>(taps.begin() + 1, taps.end()), -1);
    std::string source = GenerateKernel(OnlyKernelAst(patches), Cpu()).source.source;
    int vector_loads = 0;
    for (size_t at = source.find("(*(tg_float_"); at != std::string::npos; at = source.find("(*(tg_float_", at + 1))
      ++vector_loads;
    if (channels % 16 == 0) EXPECT_GE(vector_loads, 9) << "one vector load per tap\n" << source.substr(0, 6000);
    std::vector<float> got = patches.to_vector<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(n * (h - 2) * (w - 2) * 9 * channels));
    size_t i = 0;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < h - 2; ++y)
        for (int64_t xx = 0; xx < w - 2; ++xx)
          for (int64_t tap = 0; tap < 9; ++tap)
            for (int64_t c = 0; c < channels; ++c, ++i)
              ASSERT_EQ(got[i], x[((b * h + y + tap / 3) * w + xx + tap % 3) * channels + c]) << i;
  }
}

// A max over rows, its output columns upcast into AVX2-wide vectors (32 bytes): float64 and int64
// lanes compare into 64-bit masks and int16 lanes into 16-bit ones, which the C dialect's 32-bit
// select mask cannot take, so each lane keeps its own accumulator. The kernel compiles and each
// column's max is the host's, whatever CPU runs the test.
template <class T>
void ExpectColumnMaxOverWideLanes(DType dtype) {
  SCOPED_TRACE(dtype.name());
  const int64_t rows = 5, columns = 8;
  std::vector<T> x(rows * columns);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>((i * 37) % 23) - 11;
  Tensor t = Tensor::from_vector(x, Shape{rows, columns});
  ASSERT_EQ(t.dtype(), dtype);
  t.realize();
  UOpRef ast = OnlyKernelAst(t.max({0}));
  Target target = Target::For(Cpu());
  target.vector_bytes = 32;
  target.masked_vectors = false;
  GeneratedKernel k = GenerateKernel(ast, target, {{OptOp::kUpcast, 0, 4}});
  runtime::Device& device = *runtime::DeviceRegistry::Global().GetDevice("CPU").value();
  auto program = device.GetProgram(k.source);
  ASSERT_TRUE(program.ok()) << program.status();
  auto out = runtime::Buffer::Create(device, columns * sizeof(T));
  std::vector<runtime::KernelArg> args{runtime::KernelArg::Buf(out.get()),
                                       runtime::KernelArg::Buf(compiler::RuntimeBuffer(compiler::BufferOfView(t.uop())))};
  ASSERT_TRUE(device.Launch(**program, k.dims, args, nullptr).ok());
  std::vector<T> got(columns);
  ASSERT_TRUE(out->CopyOut(got.data(), columns * sizeof(T)).ok());
  for (int64_t c = 0; c < columns; ++c) {
    T want = x[c];
    for (int64_t r = 1; r < rows; ++r) want = std::max(want, x[r * columns + c]);
    EXPECT_EQ(got[c], want) << "column " << c;
  }
}

TEST(Vectorizer, MaxOverLanesWiderOrNarrowerThanTheMaskKeepsALaneEach) {
  ExpectColumnMaxOverWideLanes<double>(dtypes::float64);
  ExpectColumnMaxOverWideLanes<int64_t>(dtypes::int64);
  ExpectColumnMaxOverWideLanes<int16_t>(dtypes::int16);
}

// MAX is spelled (a<b)?b:a and a vector select writes its mask twice: an operand written twice must
// be a named variable, or a chain of such ops doubles its text per op (a 16-lane max fold once
// rendered a megabyte of C that gcc took minutes over). The source grows linearly with the chain.
TEST(CRenderer, ChainsOfMaxStayLinearInSourceSize) {
  auto source_of = [](int chain) {
    Tensor x = Tensor::empty({64, 256}), y = x;
    for (int i = 0; i < chain; ++i) y = y.maximum(x * static_cast<float>(i + 2));
    return GenerateKernel(OnlyKernelAst(y), Cpu()).source.source.size();
  };
  size_t ten = source_of(10), forty = source_of(40);
  EXPECT_LT(forty, ten * 6) << "10 maxes: " << ten << " bytes, 40 maxes: " << forty << " bytes";
  // Row maxima folded from vector lanes (softmax's first kernel) and a full max reduce, which the
  // scheduler splits into partials and a combine: the largest kernel of each schedule counts.
  auto largest_source = [](const Tensor& t) {
    size_t largest = 0;
    for (const auto& item : CreateSchedule({t.uop()}, {t.device()}).items)
      if (item.kind == ScheduleItem::Kind::kKernel)
        largest = std::max(largest, GenerateKernel(item.ast, Cpu()).source.source.size());
    return largest;
  };
  Tensor rows = Tensor::empty({4096, 4096});
  size_t row_max = largest_source(rows.max({1}));
  Tensor softmax = (rows - rows.max({1}, true)).exp();
  size_t softmax_sum = largest_source(softmax / softmax.sum({1}, true));
  size_t full_max = largest_source(rows.max());
  EXPECT_LT(row_max, 64u * 1024) << row_max;
  EXPECT_LT(softmax_sum, 64u * 1024) << softmax_sum;
  EXPECT_LT(full_max, 64u * 1024) << full_max;
}

}  // namespace
}  // namespace tg::compiler
