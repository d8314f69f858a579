// Matmuls under the heuristic's cache blocking (BLOCK over the reduce, threads over the columns, row
// blocks outside the block loop): the opts appear where the shared operand's slice (or a group's
// outputs) outgrows its cache and not where it fits, and every shape, at tile edges and odd sizes,
// computes what Eigen computes.
#include <Eigen/Core>
#include <string>

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

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct MatmulCase {
  int64_t m, k, n;
};

Tensor Matmul(const std::vector<float>& a, const std::vector<float>& b, const MatmulCase& c) {
  return Tensor::from_vector(a, Shape{c.m, c.k}).matmul(Tensor::from_vector(b, Shape{c.k, c.n}));
}

std::vector<float> EigenMatmul(const std::vector<float>& a, const std::vector<float>& b, const MatmulCase& c) {
  RowMajor product = Eigen::Map<const RowMajor>(a.data(), c.m, c.k) * Eigen::Map<const RowMajor>(b.data(), c.k, c.n);
  return std::vector<float>(product.data(), product.data() + product.size());
}

// The opts for an AVX-512 CPU of two cores with 48 KiB of L1 and 1 MiB of L2 a core, whatever CPU
// runs the test (heuristic_at_width.h): the blocking depends on all of these.
std::vector<Opt> HeuristicOpts(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return HeuristicAtWidth(s.items.at(0).ast, 64).applied();
}

std::string Text(const std::vector<Opt>& opts) {
  std::vector<std::string> out;
  for (const Opt& o : opts) out.push_back(o.str());
  return absl::StrJoin(out, ", ");
}

bool Has(const std::vector<Opt>& opts, OptOp op) {
  for (const Opt& o : opts)
    if (o.op == op) return true;
  return false;
}

Tensor RandomMatmul(const MatmulCase& c) { return Tensor::rand({c.m, c.k}).matmul(Tensor::rand({c.k, c.n})); }

TEST(CacheBlocking, BlocksTheReduceOnlyWhereTheSharedOperandOutgrowsTheCaches) {
  // 32 columns of a tile x 4 bytes = 128 bytes per reduce step. 1024 steps outgrow the 48 KiB L1,
  // and the 4 MiB B the 1 MiB L2; 64 steps fit the L1; a B of 1024 x 64 (256 KiB) stays in the L2,
  // its slice outgrowing L1 or not.
  std::vector<Opt> blocked = HeuristicOpts(RandomMatmul({512, 1024, 1024}));
  std::vector<Opt> short_reduce = HeuristicOpts(RandomMatmul({512, 64, 1024}));
  std::vector<Opt> narrow = HeuristicOpts(RandomMatmul({256, 1024, 64}));
  EXPECT_TRUE(Has(blocked, OptOp::kBlock)) << Text(blocked);
  EXPECT_FALSE(Has(short_reduce, OptOp::kBlock)) << Text(short_reduce);
  EXPECT_FALSE(Has(narrow, OptOp::kBlock)) << Text(narrow);
  // blocked, the threads split the columns: the global axis moves the second operand
  EXPECT_TRUE(Has(blocked, OptOp::kSwap)) << Text(blocked);
}

int Count(const std::vector<Opt>& opts, OptOp op) {
  int n = 0;
  for (const Opt& o : opts) n += o.op == op;
  return n;
}

TEST(CacheBlocking, BlocksTheRowsWhereAGroupsOutputsOutgrowTheSecondLevel) {
  // 2048 rows x 256 columns of a group (8 tiles of 32) x 4 bytes = 2 MiB of outputs per group.
  std::vector<Opt> tall = HeuristicOpts(RandomMatmul({2048, 1024, 1024}));
  ASSERT_TRUE(Has(tall, OptOp::kBlock)) << Text(tall);
  // THREAD over the rows (the row blocks), SWAP to the columns, THREAD over them, BLOCK, and the
  // SWAP that moves the row blocks outside the block loop.
  EXPECT_EQ(Count(tall, OptOp::kThread), 2) << Text(tall);
  EXPECT_EQ(Count(tall, OptOp::kSwap), 2) << Text(tall);
  EXPECT_EQ(tall.back().op, OptOp::kSwap) << Text(tall);
  // a group's 512 x 256 outputs (512 KiB) stay whole in the 1 MiB second level
  std::vector<Opt> square = HeuristicOpts(RandomMatmul({512, 1024, 1024}));
  EXPECT_LE(Count(square, OptOp::kSwap), 1) << Text(square);
}

TEST(CacheBlocking, MatchesEigenAtTileEdgesAndOddSizes) {
  // Blocked square and tall shapes; odd reduce lengths whose blocks are odd (1023 = 3 x 11 x 31) or
  // absent (1031 is prime); rows, columns and reduce that divide no tile; a vector times a matrix and
  // a reduce of one.
  std::vector<MatmulCase> cases = {{1024, 1024, 1024}, {2047, 1023, 2049}, {256, 2048, 512}, {96, 1536, 160},
                                   {64, 1031, 256},   {40, 768, 96},      {17, 4096, 33},  {1, 4096, 4096},
                                   {4096, 1, 17},     {4096, 17, 1},
                                   // row-blocked where the second level is below 2 MiB: 250 row
                                   // tiles take blocks of 25
                                   {2000, 1024, 1024}};
  uint32_t seed = 1;
  for (const MatmulCase& c : cases) {
    auto a = testing::RandomFloats(c.m * c.k, seed++, -1.0f, 1.0f), b = testing::RandomFloats(c.k * c.n, seed++, -1.0f, 1.0f);
    Tensor product = Matmul(a, b, c);
    SCOPED_TRACE(::testing::Message() << c.m << "x" << c.k << " @ " << c.k << "x" << c.n << " opts "
                                      << Text(HeuristicOpts(product)));
    // sums of up to 4096 products of [-1, 1] values: float rounding grows with the length
    testing::ExpectAllNear(product.to_vector<float>(), EigenMatmul(a, b, c), 2e-4f * (1 + c.k / 512));
  }
}

}  // namespace
}  // namespace tg::compiler
