// Matrix-vector products (a decoder's projections for one token, in float32 and as int8 weights with a
// scale per 32 of them): the heuristic reads the matrix one row after another instead of tiling
// several rows (no UPCAST), splits each row's sum over several accumulators (a second UNROLL), and the
// kernels compute what host loops compute. A product with more than one row of x keeps its tile.
#include <cmath>
#include <cstdint>

#include "absl/strings/str_join.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/compiler/heuristic_at_width.h"
#include "tests/frontend/test_util.h"

namespace tg::compiler {
namespace {

struct Quantized {
  std::vector<int8_t> q;  // (rows, depth)
  std::vector<float> scale;  // (rows, depth / 32)
  Tensor Weights(int64_t rows, int64_t depth) const {
    Tensor tq = Tensor::from_vector(q, Shape{rows, depth / 32, 32}).cast(dtypes::float32);
    Tensor ts = Tensor::from_vector(scale, Shape{rows, depth / 32, 1});
    return (tq * ts).reshape({rows, depth});
  }
  float At(int64_t r, int64_t d, int64_t depth) const { return float(q[r * depth + d]) * scale[(r * depth + d) / 32]; }
};

Quantized RandomQuantized(int64_t rows, int64_t depth, uint32_t seed) {
  Quantized w;
  std::vector<float> raw = testing::RandomFloats(rows * depth, seed, -127.0f, 127.0f);
  for (float v : raw) w.q.push_back(static_cast<int8_t>(std::lround(v)));
  w.scale = testing::RandomFloats(rows * depth / 32, seed + 1, 0.001f, 0.02f);
  return w;
}

struct Shape2 {
  int upcasts = 0, unrolls = 0;
  std::string opts;
};

Shape2 TileOf(const UOpRef& ast, int vector_bytes) {
  Kernel k = HeuristicAtWidth(ast, vector_bytes);
  Shape2 s;
  std::vector<std::string> opts;
  for (const Opt& o : k.applied()) opts.push_back(o.str());
  for (const auto& a : k.axes()) {
    s.upcasts += a.type == AxisType::kUpcast;
    s.unrolls += a.type == AxisType::kUnroll;
  }
  s.opts = absl::StrJoin(opts, ", ");
  return s;
}

TEST(MatrixVector, RowsAreReadOneAfterAnother) {
  Tensor x = Tensor::from_vector(testing::RandomFloats(768, 1), Shape{1, 768});
  Tensor dense = Tensor::from_vector(testing::RandomFloats(768 * 768, 2), Shape{768, 768});
  Tensor int8 = RandomQuantized(768, 768, 3).Weights(768, 768);
  for (const Tensor& w : {dense, int8})
    for (int vector_bytes : {32, 64}) {
      Shape2 s = TileOf(ReduceKernelOf(x.matmul(w.transpose())), vector_bytes);
      EXPECT_EQ(s.upcasts, 0) << vector_bytes << ": " << s.opts;
      EXPECT_EQ(s.unrolls, 2) << vector_bytes << ": " << s.opts;  // the vector, and accumulators apart
    }
}

TEST(MatrixVector, SideBySideProjectionsEachSplitTheirSums) {
  Tensor x = Tensor::from_vector(testing::RandomFloats(768, 4), Shape{1, 768});
  Tensor g = RandomQuantized(256, 768, 5).Weights(256, 768), u = RandomQuantized(256, 768, 7).Weights(256, 768);
  Tensor y = x.matmul(g.transpose()).silu() * x.matmul(u.transpose());
  Shape2 s = TileOf(ReduceKernelOf(y), 64);
  EXPECT_EQ(s.upcasts, 0) << s.opts;
  EXPECT_EQ(s.unrolls, 4) << s.opts;
}

TEST(MatrixVector, SeveralRowsOfXKeepTheRegisterTile) {
  Tensor x = Tensor::from_vector(testing::RandomFloats(8 * 768, 8), Shape{8, 768});
  Tensor w = Tensor::from_vector(testing::RandomFloats(768 * 768, 9), Shape{768, 768});
  Shape2 s = TileOf(ReduceKernelOf(x.matmul(w.transpose())), 64);
  EXPECT_GE(s.upcasts, 1) << s.opts;
}

TEST(MatrixVector, MatchesHostLoops) {
  for (auto [rows, depth] : {std::pair<int64_t, int64_t>{96, 768}, {40, 2048}, {24, 64}, {8, 4096}}) {
    std::vector<float> x = testing::RandomFloats(depth, 10, -1.0f, 1.0f);
    Quantized w = RandomQuantized(rows, depth, 11);
    Tensor tx = Tensor::from_vector(x, Shape{1, depth});
    std::vector<float> got = tx.matmul(w.Weights(rows, depth).transpose()).to_vector<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      double want = 0, magnitude = 0;
      for (int64_t d = 0; d < depth; ++d) {
        want += double(x[d]) * w.At(r, d, depth);
        magnitude += std::fabs(double(x[d]) * w.At(r, d, depth));
      }
      ASSERT_NEAR(got[r], want, 1e-5 * std::max(1.0, magnitude)) << rows << "x" << depth << " row " << r;
    }
  }
}

TEST(MatrixVector, SideBySideProjectionsMatchHostLoops) {
  const int64_t rows = 48, depth = 512;
  std::vector<float> x = testing::RandomFloats(depth, 12, -1.0f, 1.0f);
  Quantized g = RandomQuantized(rows, depth, 13), u = RandomQuantized(rows, depth, 15);
  Tensor tx = Tensor::from_vector(x, Shape{1, depth});
  std::vector<float> got = (tx.matmul(g.Weights(rows, depth).transpose()).silu() *
                            tx.matmul(u.Weights(rows, depth).transpose())).to_vector<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    double a = 0, b = 0;
    for (int64_t d = 0; d < depth; ++d) a += double(x[d]) * g.At(r, d, depth), b += double(x[d]) * u.At(r, d, depth);
    double want = a / (1.0 + std::exp(-a)) * b;
    ASSERT_NEAR(got[r], want, 1e-4 * std::max(1.0, std::fabs(want))) << "row " << r;
  }
}

}  // namespace
}  // namespace tg::compiler
