// End to end: permute/pad/shrink/flip/expand/reshape chains against Eigen's shuffle, pad, slice,
// reverse and broadcast.
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::FromEigen;
using testing::RandomFloats;
using testing::ToEigen;

TEST(Movement, PermuteMatchesShuffle) {
  auto data = RandomFloats(2 * 3 * 4, 1);
  Tensor t = Tensor::from_vector(data, Shape{2, 3, 4});
  auto e = ToEigen<3>(data, {2, 3, 4});
  Eigen::Tensor<float, 3, Eigen::RowMajor> want = e.shuffle(std::array<int, 3>{2, 0, 1});
  Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  ExpectAllNear(p.to_vector<float>(), FromEigen(want), 0);
}

TEST(Movement, PadShrinkFlipChain) {
  auto data = RandomFloats(3 * 4, 2);
  Tensor t = Tensor::from_vector(data, Shape{3, 4});
  auto e = ToEigen<2>(data, {3, 4});
  std::array<std::pair<int, int>, 2> pads = {std::make_pair(1, 2), std::make_pair(0, 3)};
  Eigen::Tensor<float, 2, Eigen::RowMajor> padded = e.pad(pads);                       // 6 x 7
  Eigen::Tensor<float, 2, Eigen::RowMajor> sliced =
      padded.slice(std::array<Eigen::Index, 2>{1, 2}, std::array<Eigen::Index, 2>{4, 5});  // rows 1..4, cols 2..6
  Eigen::Tensor<float, 2, Eigen::RowMajor> want = sliced.reverse(std::array<bool, 2>{true, false});

  Tensor got = t.pad({{1, 2}, {0, 3}}).shrink({{1, 5}, {2, 7}}).flip({0});
  EXPECT_EQ(got.shape(), (Shape{4, 5}));
  ExpectAllNear(got.to_vector<float>(), FromEigen(want), 0);
}

TEST(Movement, ExpandThenPermuteThenReshape) {
  auto data = RandomFloats(3, 3);
  Tensor t = Tensor::from_vector(data, Shape{3, 1});
  Tensor got = t.expand({2, 3, 4}).permute({0, 2, 1}).reshape({8, 3});
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 3; ++j) want.push_back(data[j]);
  EXPECT_EQ(got.to_vector<float>(), want);
}

TEST(Movement, PadWithValueAndNegativePadCrops) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3});
  EXPECT_EQ(t.pad({{1, 1}}, 9).to_vector<float>(), (std::vector<float>{9, 1, 2, 3, 9}));
  EXPECT_EQ(t.pad({{-1, 2}}).to_vector<float>(), (std::vector<float>{2, 3, 0, 0}));
}

TEST(Movement, TransposeReshapeInferAndFlatten) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(t.transpose().to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(t.reshape({3, -1}).shape(), (Shape{3, 2}));
  EXPECT_EQ(t.transpose().flatten().to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Movement, ReduceOverAPaddedFlippedView) {
  auto data = RandomFloats(4 * 5, 4);
  Tensor t = Tensor::from_vector(data, Shape{4, 5});
  auto e = ToEigen<2>(data, {4, 5});
  std::array<std::pair<int, int>, 2> pads = {std::make_pair(2, 0), std::make_pair(1, 1)};
  Eigen::Tensor<float, 2, Eigen::RowMajor> padded = e.reverse(std::array<bool, 2>{false, true}).pad(pads);
  Eigen::Tensor<float, 1, Eigen::RowMajor> want = padded.sum(std::array<Eigen::Index, 1>{0});
  ExpectAllNear(t.flip({1}).pad({{2, 0}, {1, 1}}).sum({0}).to_vector<float>(), FromEigen(want));
}

}  // namespace
}  // namespace tg
