// Shared factors: a sum's unrolled copies that multiply by the same value are summed first and
// multiplied once, and a dequantized matrix-vector product computes the same values with one
// multiply by its block scale per block.
#include <cmath>
#include <random>

#include "compiler/codegen/expander.h"
#include "compiler/codegen/kernel.h"
#include "compiler/codegen/shared_factor.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

UOpRef Leaf(const char* name, DType dtype = dtypes::float32) {
  return UOp::Make(Ops::kDefineVar, dtype, {}, std::string(name));
}
UOpRef Mul(const UOpRef& a, const UOpRef& b) { return a * b; }
UOpRef Add(const UOpRef& a, const UOpRef& b) { return a + b; }

TEST(SharedFactor, ProductsSharingAFactorMultiplyByItOnce) {
  UOpRef x = Leaf("x"), y = Leaf("y"), q = Leaf("q"), r = Leaf("r"), s = Leaf("s");
  // x·(q·s) + y·(r·s) = (x·q + y·r)·s, whichever side of each product s is on.
  UOpRef want = Mul(Add(Mul(x, q), Mul(y, r)), s);
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(x, Mul(q, s)), Mul(y, Mul(r, s)))), want);
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(Mul(s, q), x), Mul(y, Mul(r, s)))), Mul(Add(Mul(q, x), Mul(y, r)), s));
  // A sum already factored takes the next copy in: p·s + x·(q·s) = (p + x·q)·s.
  UOpRef p = Add(x, y);
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(p, s), Mul(x, Mul(q, s)))), Mul(Add(p, Mul(x, q)), s));
  // Integers are a ring: the same identity holds exactly.
  UOpRef i = Leaf("i", dtypes::int32), j = Leaf("j", dtypes::int32), k = Leaf("k", dtypes::int32);
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(i, k), Mul(j, k))), Mul(Add(i, j), k));
}

TEST(SharedFactor, SumsWithoutASharedFactorStayAsTheyAre) {
  UOpRef x = Leaf("x"), y = Leaf("y"), q = Leaf("q"), r = Leaf("r"), s = Leaf("s");
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(x, q), Mul(y, r))), nullptr);  // a matmul's copies
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(s, Mul(y, s))), nullptr);          // s alone is no product
  EXPECT_EQ(SharedFactorRules().Rewrite(Add(Mul(x, s), y)), nullptr);
}

// y = W·x over weights stored as int8 quants and one float16 scale per block of 32 (GGUF's Q8_0),
// dequantized inside the reduce: w = q·s.
struct BlockQuantizedMatvec {
  static constexpr int64_t kRows = 6, kColumns = 128, kBlock = 32;
  std::vector<float> x, q, s;

  BlockQuantizedMatvec() {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(-1, 1);
    std::uniform_int_distribution<int> quant(-127, 127);
    for (int64_t c = 0; c < kColumns; ++c) x.push_back(unit(rng));
    for (int64_t i = 0; i < kRows * kColumns; ++i) q.push_back(static_cast<float>(quant(rng)));
    std::uniform_int_distribution<int> mantissa(1024, 2047);  // exact in float16
    for (int64_t b = 0; b < kRows * kColumns / kBlock; ++b) s.push_back(std::ldexp(static_cast<float>(mantissa(rng)), -17));
  }

  Tensor Y() const {
    Tensor quants = Tensor::from_vector(q, Shape{kRows, kColumns / kBlock, kBlock}).cast(dtypes::int8).realize();
    Tensor scales = Tensor::from_vector(s, Shape{kRows, kColumns / kBlock, 1}).cast(dtypes::float16).realize();
    Tensor w = (quants.float_() * scales.float_()).reshape({kRows, kColumns});
    return (Tensor::from_vector(x, Shape{1, kColumns}) * w).sum({1});
  }

  double Want(int64_t row) const {
    double sum = 0;
    for (int64_t c = 0; c < kColumns; ++c)
      sum += static_cast<double>(x[c]) * q[row * kColumns + c] * s[(row * kColumns + c) / kBlock];
    return sum;
  }
};

int FloatMultiplies(const UOpRef& sink) {
  int n = 0;
  for (const UOpRef& u : sink->toposort()) n += u->op() == Ops::kMul && u->dtype().base().is_float();
  return n;
}

TEST(SharedFactor, AnUnrolledBlockMultipliesByItsScaleOnce) {
  Tensor y = BlockQuantizedMatvec().Y();
  Schedule schedule = CreateSchedule({y.uop()}, {y.device()});
  ASSERT_EQ(schedule.items.size(), 1u);
  Kernel k(schedule.items[0].ast);
  ASSERT_EQ(k.axes().size(), 2u);
  ASSERT_EQ(k.axes()[1].type, AxisType::kReduce);
  k.Apply({OptOp::kUnroll, 1, 8});  // one block of 32 a step: 8 lanes, 4 copies of them
  k.Apply({OptOp::kUnroll, 1, 4});
  UOpRef expanded = k.ast();
  for (const UOpRef& range : k.RangesOf(AxisType::kUnroll)) expanded = UnrollReduceAxis(expanded, range);
  // 32 copies of x·q, and the block's scale multiplying their sum once (unfactored: 64 multiplies).
  EXPECT_EQ(FloatMultiplies(expanded), BlockQuantizedMatvec::kBlock + 1) << expanded->str();
}

TEST(SharedFactor, ADequantizedMatvecComputesTheSameValues) {
  BlockQuantizedMatvec m;
  std::vector<float> got = m.Y().to_vector<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(BlockQuantizedMatvec::kRows));
  for (int64_t r = 0; r < BlockQuantizedMatvec::kRows; ++r) EXPECT_NEAR(got[r], m.Want(r), 1e-4) << "row " << r;
}

}  // namespace
}  // namespace tg::compiler
