#include "ir/dtype.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace tg {
namespace {

using namespace dtypes;  // NOLINT: the table below reads like tinygrad's

struct PromoCase {
  DType a, b, want;
};

// Expected values worked out by hand from tinygrad's promo_lattice (dtype.py) and least_upper_dtype
// (the lowest-priority common ancestor); the weak and fp8 types are contracted out of the lattice.
TEST(DTypeTest, PromotionMatchesTinygradLattice) {
  const std::vector<PromoCase> cases = {
      {bool_, bool_, bool_},        {bool_, int8, int8},           {bool_, uint8, uint8},
      {bool_, float16, float16},    {int8, uint8, int16},          {int8, int16, int16},
      {int8, int64, int64},         {uint8, uint16, uint16},       {uint8, int16, int16},
      {uint16, int16, int32},       {uint16, int32, int32},        {uint32, int32, int64},
      {uint32, int8, int64},        {uint32, uint64, uint64},      {int64, uint64, float16},
      {int32, uint64, float16},     {int64, float16, float16},     {int64, bfloat16, bfloat16},
      {float16, bfloat16, float32}, {int32, float32, float32},     {uint8, float64, float64},
      {float32, float64, float64},  {bfloat16, float16, float32},  {int8, uint64, float16},
  };
  for (const PromoCase& c : cases) {
    EXPECT_EQ(PromoteTypes(c.a, c.b), c.want) << c.a << " + " << c.b;
    EXPECT_EQ(PromoteTypes(c.b, c.a), c.want) << c.b << " + " << c.a << " (promotion is symmetric)";
  }
}

TEST(DTypeTest, PromotionKeepsVectorWidth) {
  EXPECT_EQ(PromoteTypes(float32.vec(4), float16), float32.vec(4));
  EXPECT_EQ(PromoteTypes(int8.vec(2), uint8.vec(2)), int16.vec(2));
}

TEST(DTypeTest, NamesSizesAndKinds) {
  EXPECT_EQ(float32.name(), "float32");
  EXPECT_EQ(float32.vec(4).name(), "float32x4");
  EXPECT_EQ(bool_.name(), "bool");
  EXPECT_EQ(bool_.itemsize(), 1);
  EXPECT_EQ(float16.itemsize(), 2);
  EXPECT_EQ(float32.vec(4).itemsize(), 16);
  EXPECT_EQ(float32.vec(4).base(), float32);
  EXPECT_TRUE(uint8.is_int());
  EXPECT_TRUE(uint8.is_unsigned());
  EXPECT_FALSE(int8.is_unsigned());
  EXPECT_FALSE(bool_.is_int());
  EXPECT_TRUE(bfloat16.is_float());
  EXPECT_FALSE(int64.is_float());
  EXPECT_TRUE(DType().is_void());
  EXPECT_EQ(index, int32);
}

TEST(DTypeTest, FromName) {
  EXPECT_EQ(DTypeFromName("float32"), float32);
  EXPECT_EQ(DTypeFromName("float"), float32);
  EXPECT_EQ(DTypeFromName("half"), float16);
  EXPECT_EQ(DTypeFromName("double"), float64);
  EXPECT_EQ(DTypeFromName("int"), int32);
  EXPECT_EQ(DTypeFromName("long"), int64);
  EXPECT_EQ(DTypeFromName("uchar"), uint8);
  EXPECT_EQ(DTypeFromName("bfloat16"), bfloat16);
  EXPECT_EQ(DTypeFromName("bool"), bool_);
  EXPECT_EQ(DTypeFromName("float33"), std::nullopt);
}

TEST(DTypeTest, IntLimits) {
  EXPECT_EQ(DTypeMinInt(int8), -128);
  EXPECT_EQ(DTypeMaxInt(int8), 127);
  EXPECT_EQ(DTypeMaxInt(uint8), 255);
  EXPECT_EQ(DTypeMinInt(uint32), 0);
  EXPECT_EQ(DTypeMaxInt(uint32), 4294967295);
  EXPECT_EQ(DTypeMinInt(int32), -2147483648LL);
  EXPECT_EQ(DTypeMaxInt(int64), INT64_MAX);
  EXPECT_EQ(DTypeMaxInt(uint64), INT64_MAX);  // saturates
  EXPECT_EQ(DTypeMaxInt(bool_), 1);
  EXPECT_TRUE(std::isinf(DTypeMaxDouble(float32)));
}

TEST(DTypeTest, CastConstFollowsC) {
  EXPECT_EQ(std::get<int64_t>(CastConst(int64_t{300}, int8)), 44);   // wraps to 8 bits
  EXPECT_EQ(std::get<int64_t>(CastConst(int64_t{-1}, uint8)), 255);
  EXPECT_EQ(std::get<int64_t>(CastConst(-2.7, int32)), -2);          // truncates toward zero
  EXPECT_EQ(std::get<bool>(CastConst(int64_t{2}, bool_)), true);
  EXPECT_EQ(std::get<bool>(CastConst(0.0, bool_)), false);
  EXPECT_EQ(std::get<double>(CastConst(true, float32)), 1.0);
  EXPECT_EQ(std::get<double>(CastConst(0.1, float32)), static_cast<double>(0.1f));
  EXPECT_EQ(std::get<double>(CastConst(0.1, float16)), 0.0999755859375);  // nearest half
  EXPECT_EQ(std::get<double>(CastConst(1.0 / 3, bfloat16)), 0.333984375);
  EXPECT_TRUE(std::isinf(std::get<double>(CastConst(70000.0, float16))));
}

}  // namespace
}  // namespace tg
