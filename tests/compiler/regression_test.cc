// Regressions found by the op suites, each the smallest program that failed before its fix.
#include "frontend/tg.h"
#include "gtest/gtest.h"

// A reduce over an empty axis read a size-0 buffer that owns no memory (segfault).
TEST(Regression, ReduceOverAnEmptyAxis) {
  auto a = tg::Tensor::zeros({0, 3}).contiguous();
  EXPECT_EQ(a.sum({0}, true).to_vector<float>(), std::vector<float>(3, 0.0f));
}
TEST(Regression, IntCummax) {
  auto a = tg::Tensor::from_vector<int32_t>({3, -7, 12, 5});
  auto r = a.cummax(0).first.to_vector<int32_t>();
  EXPECT_EQ(r, (std::vector<int32_t>{3, 3, 12, 12}));
  auto m = a.max().item<int32_t>();
  EXPECT_EQ(m, 12);
}
TEST(Regression, NeOfComparisons) {
  auto a = tg::Tensor::from_vector<int32_t>({3, -7, 12, -5});
  auto b = tg::Tensor::full({4}, -2, tg::dtypes::int32);
  auto r = a.lt(0).ne(b.lt(0)).to_vector<bool>();
  EXPECT_EQ(r, (std::vector<bool>{true, false, true, false}));
}
// Vectorized: a comparison mask lane is -1 for true; read as a bool it compared != 1 (always true).
TEST(Regression, IntCummaxVectorizedMask) {
  auto a = tg::Tensor::from_vector<int32_t>({-60, -20, 40, 3, 86, 1, 2, -5});
  auto r = a.cummax(0).first.to_vector<int32_t>();
  EXPECT_EQ(r, (std::vector<int32_t>{-60, -20, 40, 40, 86, 86, 86, 86}));
}
// A padded empty tensor added to a full one: the empty buffer became a kernel parameter.
TEST(Regression, PaddedEmptyTensor) {
  tg::Tensor a = tg::Tensor::ones({2, 3});
  tg::Tensor e = tg::Tensor::from_vector<float>({}, tg::Shape{0, 3});
  EXPECT_EQ((a + e.pad({{2, 0}, {0, 0}})).to_vector<float>(), std::vector<float>(6, 1.0f));
}
