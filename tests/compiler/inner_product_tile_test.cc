// x @ W.T (both operands read along the reduce axis, which the heuristic vectorizes): on a CPU with
// 32 vector registers the kernel gets a 4 x 4 tile of output rows and columns, each loaded vector
// serving four accumulators, and computes what a host triple loop computes.
#include <cmath>

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

const runtime::DeviceInfo& Cpu() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

Tensor InnerProducts(int64_t rows, int64_t cols, int64_t depth, std::vector<float>* x, std::vector<float>* w) {
  *x = testing::RandomFloats(rows * depth, 1, -1.0f, 1.0f);
  *w = testing::RandomFloats(cols * depth, 2, -1.0f, 1.0f);
  return Tensor::from_vector(*x, Shape{rows, depth}).matmul(Tensor::from_vector(*w, Shape{cols, depth}).transpose());
}

// As an AVX-512 CPU (32 vector registers) chooses them, whatever CPU runs the test.
TEST(InnerProductTile, RowsAndColumnsBothTile) {
  std::vector<float> x, w;
  UOpRef ast = ReduceKernelOf(InnerProducts(1024, 768, 256, &x, &w));
  Kernel k = HeuristicAtWidth(ast, 64);
  std::vector<std::string> opts;
  int upcasts = 0, unrolls = 0;
  for (const Opt& o : k.applied()) opts.push_back(o.str());
  for (const auto& a : k.axes()) {
    upcasts += a.type == AxisType::kUpcast && a.extent() == 4;
    unrolls += a.type == AxisType::kUnroll;
  }
  EXPECT_EQ(upcasts, 2) << absl::StrJoin(opts, ", ");
  EXPECT_EQ(unrolls, 1) << absl::StrJoin(opts, ", ");
}

// Each output of a vectorized reduce ends with a sum of its lanes in order: a short reduce (a 64-wide
// model's inner products) takes narrower vectors, so that sum costs no more than its vector steps,
// and a long one keeps the widest. For AVX2's and AVX-512's widths, whatever CPU runs the test.
TEST(InnerProductTile, ShortReducesTakeNarrowerVectors) {
  struct Case {
    int vector_bytes;
    int64_t depth, want_lanes;
  };
  for (Case c : {Case{64, 64, 8}, Case{64, 1024, 16}, Case{32, 32, 4}, Case{32, 1024, 8}}) {
    std::vector<float> x, w;
    Kernel k = HeuristicAtWidth(ReduceKernelOf(InnerProducts(256, 256, c.depth, &x, &w)), c.vector_bytes);
    int64_t lanes = 0;
    for (const auto& a : k.axes())
      if (a.type == AxisType::kUnroll && lanes == 0) lanes = a.extent();
    EXPECT_EQ(lanes, c.want_lanes) << c.vector_bytes << "-byte vectors, depth " << c.depth;
  }
}

TEST(InnerProductTile, MatchesHostLoops) {
  for (auto [rows, cols, depth] : {std::tuple{64, 48, 48}, {128, 32, 80}, {32, 64, 1024}}) {
    std::vector<float> x, w;
    std::vector<float> got = InnerProducts(rows, cols, depth, &x, &w).to_vector<float>();
    ASSERT_EQ(got.size(), static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        double want = 0;
        for (int64_t d = 0; d < depth; ++d) want += double(x[r * depth + d]) * w[c * depth + d];
        ASSERT_NEAR(got[r * cols + c], want, 1e-4 * std::max(1.0, std::fabs(want))) << rows << "x" << cols << "x" << depth;
      }
  }
}

// Two reduces fused side by side (a SwiGLU: silu(x @ G.T) * (x @ U.T), each over the model width):
// each REDUCE gets its own vectors (two UNROLLs, both rendered as vector loads of x and of its
// weight, at AVX2's and AVX-512's widths), and the values are the host's.
TEST(InnerProductTile, SideBySideReducesEachTakeVectors) {
  auto x = testing::RandomFloats(64, 3, -1.0f, 1.0f), g = testing::RandomFloats(32 * 64, 4, -1.0f, 1.0f);
  auto u = testing::RandomFloats(32 * 64, 5, -1.0f, 1.0f);
  Tensor tx = Tensor::from_vector(x, Shape{1, 64});
  Tensor y = tx.matmul(Tensor::from_vector(g, Shape{32, 64}).transpose()).silu() *
             tx.matmul(Tensor::from_vector(u, Shape{32, 64}).transpose());
  UOpRef ast = ReduceKernelOf(y);
  int reduces = 0;
  for (const UOpRef& op : ast->toposort()) reduces += op->op() == Ops::kReduce;
  ASSERT_EQ(reduces, 2) << "the scheduler no longer fuses the two projections";
  for (int vector_bytes : {32, 64}) {
    Kernel k = HeuristicAtWidth(ast, vector_bytes);
    std::vector<std::string> opts;
    int unrolls = 0;
    for (const Opt& o : k.applied()) {
      opts.push_back(o.str());
      unrolls += o.op == OptOp::kUnroll;
    }
    EXPECT_EQ(unrolls, 2) << vector_bytes << ": " << absl::StrJoin(opts, ", ");
  }
  // Rendered as llvm-ir, the fused kernel holds the vector loads of two single projections.
  runtime::DeviceInfo llvm = Cpu();
  llvm.source_dialects = {"llvm-ir", "c"};
  auto vector_loads = [&](const UOpRef& kernel) {
    std::string ir = GenerateKernel(kernel, llvm).source.source;
    int n = 0;
    for (size_t p = ir.find(" = load <"); p != std::string::npos; p = ir.find(" = load <", p + 1))
      n += ir.compare(ir.find(" x ", p), 8, " x float") == 0;
    return n;
  };
  if (Target::For(llvm).vectors) {
    int one = vector_loads(ReduceKernelOf(tx.matmul(Tensor::from_vector(g, Shape{32, 64}).transpose()).silu()));
    EXPECT_GT(one, 0);
    EXPECT_GE(vector_loads(ast), 2 * one) << "the second projection is not on vectors";
  }
  std::vector<float> got = y.to_vector<float>();
  for (int j = 0; j < 32; ++j) {
    double a = 0, b = 0;
    for (int i = 0; i < 64; ++i) a += x[i] * g[j * 64 + i], b += x[i] * u[j * 64 + i];
    double want = a / (1 + std::exp(-a)) * b;
    EXPECT_NEAR(got[j], want, 1e-4 * std::max(1.0, std::abs(want))) << j;
  }
}

}  // namespace
}  // namespace tg::compiler
