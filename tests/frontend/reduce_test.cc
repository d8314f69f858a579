// End to end: sum/max/mean over every axis of a 3-D tensor, with and without keepdim, and the
// 128x256 @ 256x64 matmul, against Eigen.
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::FromEigen;
using testing::RandomFloats;
using testing::ToEigen;

constexpr Eigen::Index kD0 = 3, kD1 = 4, kD2 = 5;

class ReduceAxis : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(ReduceAxis, SumMaxMeanMatchEigen) {
  auto [axis, keepdim] = GetParam();
  auto data = RandomFloats(kD0 * kD1 * kD2, 10 + axis);
  Tensor t = Tensor::from_vector(data, Shape{kD0, kD1, kD2});
  auto e = ToEigen<3>(data, {kD0, kD1, kD2});
  std::array<Eigen::Index, 1> dims = {axis};
  Eigen::Tensor<float, 2, Eigen::RowMajor> sum = e.sum(dims), max = e.maximum(dims), mean = e.mean(dims);

  Shape expected = {kD0, kD1, kD2};
  if (keepdim) expected[axis] = 1;
  else expected.erase(expected.begin() + axis);
  Tensor s = t.sum({axis}, keepdim), m = t.max({axis - 3}, keepdim), a = t.mean({axis}, keepdim);
  EXPECT_EQ(s.shape(), expected);
  EXPECT_EQ(m.shape(), expected);
  ExpectAllNear(s.to_vector<float>(), FromEigen(sum));
  ExpectAllNear(m.to_vector<float>(), FromEigen(max));
  ExpectAllNear(a.to_vector<float>(), FromEigen(mean));
}

INSTANTIATE_TEST_SUITE_P(EveryAxis, ReduceAxis,
                         ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Bool()));

TEST(Reduce, AllAxesAndSeveralAxes) {
  auto data = RandomFloats(kD0 * kD1 * kD2, 20);
  Tensor t = Tensor::from_vector(data, Shape{kD0, kD1, kD2});
  auto e = ToEigen<3>(data, {kD0, kD1, kD2});
  Eigen::Tensor<float, 0, Eigen::RowMajor> total = e.sum();
  EXPECT_NEAR(t.sum().item<float>(), total(), 1e-4f);
  EXPECT_EQ(t.sum().shape(), Shape{});
  std::array<Eigen::Index, 2> dims = {0, 2};
  Eigen::Tensor<float, 1, Eigen::RowMajor> max02 = e.maximum(dims);
  ExpectAllNear(t.max({0, 2}).to_vector<float>(), FromEigen(max02));
  EXPECT_EQ(t.max({0, 2}, true).shape(), (Shape{1, kD1, 1}));
}

TEST(Reduce, IntegerSumAccumulatesInInt32) {
  Tensor t = Tensor::from_vector<bool>({true, true, false, true});
  EXPECT_EQ(t.sum().dtype(), dtypes::int32);
  EXPECT_EQ(t.sum().item<int32_t>(), 3);
  Tensor i = Tensor::from_vector<int32_t>({5, -9, 4}, Shape{3});
  EXPECT_EQ(i.max().item<int32_t>(), 5);
  EXPECT_EQ(i.min().item<int32_t>(), -9);
}

TEST(Reduce, ReduceOfAnElementwiseChainThenBroadcast) {
  // Softmax: two reduces whose results are broadcast back.
  auto data = RandomFloats(6 * 7, 30);
  Tensor t = Tensor::from_vector(data, Shape{6, 7});
  Tensor shifted = t - t.max({1}, true);
  Tensor e = shifted.exp();
  std::vector<float> got = (e / e.sum({1}, true)).to_vector<float>();
  for (int r = 0; r < 6; ++r) {
    float mx = -1e30f, denom = 0;
    for (int c = 0; c < 7; ++c) mx = std::max(mx, data[r * 7 + c]);
    for (int c = 0; c < 7; ++c) denom += std::exp(data[r * 7 + c] - mx);
    for (int c = 0; c < 7; ++c) EXPECT_NEAR(got[r * 7 + c], std::exp(data[r * 7 + c] - mx) / denom, 1e-6f);
  }
}

TEST(Matmul, Matmul128x256x64MatchesEigen) {
  auto a = RandomFloats(128 * 256, 40), b = RandomFloats(256 * 64, 41);
  Tensor ta = Tensor::from_vector(a, Shape{128, 256}), tb = Tensor::from_vector(b, Shape{256, 64});
  Eigen::Map<Eigen::Matrix<float, -1, -1, Eigen::RowMajor>> ea(a.data(), 128, 256), eb(b.data(), 256, 64);
  Eigen::Matrix<double, -1, -1, Eigen::RowMajor> want = ea.cast<double>() * eb.cast<double>();
  Tensor c = ta.matmul(tb);
  EXPECT_EQ(c.shape(), (Shape{128, 64}));
  std::vector<float> got = c.to_vector<float>();
  double err = 0, norm = 0;
  for (int i = 0; i < 128 * 64; ++i) {
    err += (got[i] - want.data()[i]) * (got[i] - want.data()[i]);
    norm += want.data()[i] * want.data()[i];
  }
  EXPECT_LT(std::sqrt(err / norm), 1e-5);
}

TEST(Matmul, VectorAndBatchedShapes) {
  Tensor m = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Tensor v = Tensor::from_vector<float>({1, 0, -1});
  EXPECT_EQ(m.matmul(v).to_vector<float>(), (std::vector<float>{-2, -2}));
  EXPECT_EQ(v.matmul(m.transpose()).shape(), Shape{2});
  Tensor batch = Tensor::ones({4, 2, 3});
  Tensor w = Tensor::ones({3, 5});
  Tensor out = batch.matmul(w);
  EXPECT_EQ(out.shape(), (Shape{4, 2, 5}));
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(40, 3.0f));
}

}  // namespace
}  // namespace tg
