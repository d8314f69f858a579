// End to end: broadcasting elementwise chains, realized on the default device, against Eigen.
#include <cmath>

#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::RandomFloats;
using testing::ToEigen;
using testing::FromEigen;

TEST(Elementwise, FromVectorRoundTrips) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  Tensor t = Tensor::from_vector(data, Shape{2, 3});
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.dtype(), dtypes::float32);
  EXPECT_EQ(t.to_vector<float>(), data);
}

TEST(Elementwise, BroadcastChainMatchesEigen) {
  auto a = RandomFloats(4 * 3 * 5, 1), b = RandomFloats(3 * 1, 2), c = RandomFloats(5, 3);
  Tensor ta = Tensor::from_vector(a, Shape{4, 3, 5});
  Tensor tb = Tensor::from_vector(b, Shape{3, 1});
  Tensor tc = Tensor::from_vector(c, Shape{5});
  Tensor out = ((ta * tb + tc) * 0.5f - tb).relu().maximum(tc * 0.25f);

  using T3 = Eigen::Tensor<float, 3, Eigen::RowMajor>;
  T3 ea = ToEigen<3>(a, {4, 3, 5});
  T3 eb = ToEigen<3>(b, {1, 3, 1}).broadcast(std::array<Eigen::Index, 3>{4, 1, 5});
  T3 ec = ToEigen<3>(c, {1, 1, 5}).broadcast(std::array<Eigen::Index, 3>{4, 3, 1});
  T3 want =
      ((ea * eb + ec) * 0.5f - eb).cwiseMax(0.0f).cwiseMax(ec * 0.25f);
  EXPECT_EQ(out.shape(), (Shape{4, 3, 5}));
  ExpectAllNear(out.to_vector<float>(), FromEigen(want));
}

TEST(Elementwise, UnaryMathMatchesLibm) {
  auto a = RandomFloats(64, 4, 0.1f, 3.0f);
  Tensor t = Tensor::from_vector(a);
  auto exp = t.exp().to_vector<float>(), log = t.log().to_vector<float>(), sqrt = t.sqrt().to_vector<float>();
  auto neg = (-t).to_vector<float>(), div = (1.0f / t).to_vector<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(exp[i], std::exp(a[i]), 1e-5f * std::exp(a[i]));
    EXPECT_NEAR(log[i], std::log(a[i]), 1e-5f);
    EXPECT_NEAR(sqrt[i], std::sqrt(a[i]), 1e-6f);
    EXPECT_EQ(neg[i], -a[i]);
    EXPECT_NEAR(div[i], 1.0f / a[i], 1e-6f * std::abs(1.0f / a[i]));
  }
}

TEST(Elementwise, ComparisonsWhereAndCast) {
  Tensor a = Tensor::from_vector<float>({-1.5f, 0.0f, 2.5f, 3.0f});
  Tensor b = Tensor::from_vector<float>({0.0f, 0.0f, 3.0f, 1.0f});
  EXPECT_EQ((a < b).to_vector<bool>(), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ((a >= b).to_vector<bool>(), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ((a == b).to_vector<bool>(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ((a != 0.0f).to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ((a > b).where(a, b).to_vector<float>(), (std::vector<float>{0.0f, 0.0f, 3.0f, 3.0f}));
  EXPECT_EQ(a.cast(dtypes::int32).to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 2, 3}));
}

TEST(Elementwise, IntegerTensorsKeepIntegerDtypes) {
  Tensor a = Tensor::from_vector<int32_t>({7, -7, 3});
  EXPECT_EQ((a * 2).dtype(), dtypes::int32);
  EXPECT_EQ((a * 2).to_vector<int32_t>(), (std::vector<int32_t>{14, -14, 6}));
  EXPECT_EQ((a + 0.5).dtype(), dtypes::float32);  // a float scalar promotes to the default float
  EXPECT_EQ((a / 2).to_vector<float>(), (std::vector<float>{3.5f, -3.5f, 1.5f}));  // true division
}

TEST(Elementwise, CreationHelpers) {
  EXPECT_EQ(Tensor::zeros({2, 2}).to_vector<float>(), std::vector<float>(4, 0.0f));
  EXPECT_EQ(Tensor::ones({3}, dtypes::int32).to_vector<int32_t>(), std::vector<int32_t>(3, 1));
  EXPECT_EQ(Tensor::full({2}, 2.5f).to_vector<float>(), std::vector<float>(2, 2.5f));
  EXPECT_EQ(Tensor::arange(5).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Tensor::arange(1, 2, 0.25).to_vector<float>(), (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  EXPECT_EQ(Tensor::full({}, 3).item<int32_t>(), 3);
}

// An integral arange is computed where it is read (no buffer behind it); it must give the host's
// start + i * step in every dtype, negative steps and starts included.
TEST(Elementwise, LazyArangeMatchesTheHostInEveryDtype) {
  struct Params {
    int64_t start, stop, step;
  };
  for (DType dtype : {dtypes::int32, dtypes::int64, dtypes::float32, dtypes::bfloat16, dtypes::int8})
    for (Params p : {Params{0, 7, 1}, Params{5, -4, -3}, Params{-10, 10, 4}, Params{100, 101, 1}}) {
      Tensor t = Tensor::arange(p.start, p.stop, p.step, dtype);
      EXPECT_EQ(t.dtype(), dtype);
      for (const UOpRef& u : t.uop()->toposort()) EXPECT_NE(u->op(), Ops::kBuffer) << dtype.name();
      std::vector<float> want;
      for (int64_t v = p.start; p.step > 0 ? v < p.stop : v > p.stop; v += p.step) want.push_back(static_cast<float>(v));
      EXPECT_EQ(t.cast(dtypes::float32).to_vector<float>(), want) << dtype.name() << " from " << p.start;
    }
  EXPECT_EQ(Tensor::arange(3, 0, -1).to_vector<int32_t>(), (std::vector<int32_t>{3, 2, 1}));
  EXPECT_EQ(Tensor::arange(2.0, 5.0, 1.0).to_vector<float>(), (std::vector<float>{2, 3, 4}));
}

// Past 2^24 float32 no longer holds every integer: those aranges are made on the host in double
// and rounded once, as PyTorch does, not accumulated in float32.
TEST(Elementwise, ArangeBeyondFloatPrecisionRoundsOnce) {
  const int64_t start = (int64_t{1} << 24) - 2;
  std::vector<float> want;
  for (int64_t i = 0; i < 6; ++i) want.push_back(static_cast<float>(static_cast<double>(start + i)));
  EXPECT_EQ(Tensor::arange(start, start + 6, 1, dtypes::float32).to_vector<float>(), want);
  EXPECT_EQ(Tensor::arange(static_cast<double>(start), static_cast<double>(start + 6), 1.0).to_vector<float>(), want);
  std::vector<int32_t> ints;  // int32 holds these: lazy and exact
  for (int64_t i = 0; i < 6; ++i) ints.push_back(static_cast<int32_t>(start + i));
  EXPECT_EQ(Tensor::arange(start, start + 6).to_vector<int32_t>(), ints);
}

TEST(Elementwise, RandIsSeededAndInRange) {
  Tensor::manual_seed(42);
  auto first = Tensor::rand({1000}).to_vector<float>();
  Tensor::manual_seed(42);
  auto again = Tensor::rand({1000}).to_vector<float>();
  EXPECT_EQ(first, again);
  double mean = 0;
  for (float x : first) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
    mean += x / first.size();
  }
  EXPECT_NEAR(mean, 0.5, 0.05);
  auto normal = Tensor::randn({4000}).to_vector<float>();
  double m = 0, var = 0;
  for (float x : normal) m += x / normal.size();
  for (float x : normal) var += (x - m) * (x - m) / normal.size();
  EXPECT_NEAR(m, 0.0, 0.06);
  EXPECT_NEAR(var, 1.0, 0.08);
}

TEST(Elementwise, RealizeSharesTheResultWithCopies) {
  Tensor a = Tensor::from_vector<float>({1, 2});
  Tensor b = a + 1;
  Tensor alias = b;
  b.realize();
  EXPECT_EQ(alias.uop(), b.uop());
  EXPECT_EQ(alias.to_vector<float>(), (std::vector<float>{2, 3}));
}

}  // namespace
}  // namespace tg
