// sort/argsort/topk (bitonic) and einsum against hand-computed values, gradients and errors.
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::RandomFloats;

TEST(Sort, ValuesAndStableIndices) {
  Tensor t = Tensor::from_vector<float>({0.1f, 0.5f, 1.2f, 3.4f, 2.1f, 2.2f, 1.9f, 0.3f, 4.5f, 0.8f}, Shape{2, 5});
  auto [v, i] = t.sort(1, true);
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{3.4f, 2.1f, 1.2f, 0.5f, 0.1f, 4.5f, 2.2f, 1.9f, 0.8f, 0.3f}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{3, 4, 2, 1, 0, 3, 0, 1, 4, 2}));
  Tensor dup = Tensor::from_vector<int32_t>({3, 1, 3, 2, 1});
  EXPECT_EQ(dup.sort().first.to_vector<int32_t>(), (std::vector<int32_t>{1, 1, 2, 3, 3}));
  EXPECT_EQ(dup.argsort().to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 3, 0, 2}));
  EXPECT_EQ(dup.argsort(0, true).to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 3, 1, 4}));
  // along axis 0 of a non-contiguous (transposed) input
  Tensor tt = t.permute({1, 0});
  EXPECT_EQ(tt.sort(0).second.to_vector<int32_t>(), (std::vector<int32_t>{0, 2, 1, 4, 2, 1, 4, 0, 3, 3}));
  EXPECT_EQ(Tensor::full({1}, 2.0f).sort().second.to_vector<int32_t>(), (std::vector<int32_t>{0}));
}

TEST(Sort, RandomAgainstStdSort) {
  auto data = RandomFloats(3 * 13, 5);
  auto [v, i] = Tensor::from_vector(data, Shape{3, 13}).sort(-1);
  auto vals = v.to_vector<float>();
  auto idx = i.to_vector<int32_t>();
  for (int r = 0; r < 3; ++r) {
    std::vector<float> row(data.begin() + 13 * r, data.begin() + 13 * (r + 1)), sorted = row;
    std::sort(sorted.begin(), sorted.end());
    for (int c = 0; c < 13; ++c) {
      EXPECT_EQ(vals[13 * r + c], sorted[c]);
      EXPECT_EQ(row[idx[13 * r + c]], sorted[c]);
    }
  }
}

TEST(Sort, TopkAndGradient) {
  Tensor t = Tensor::from_vector<float>({1, 4, 2, 8, 5});
  auto [v, i] = t.topk(2);
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{8, 5}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{3, 4}));
  auto [sv, si] = t.topk(2, 0, false);
  EXPECT_EQ(sv.to_vector<float>(), (std::vector<float>{1, 2}));
  Tensor x = Tensor::from_vector<float>({3, 1, 2}).requires_grad(true);
  (x.sort().first * Tensor::from_vector<float>({1, 10, 100})).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{100, 1, 10}));
}

TEST(Einsum, Forms) {
  auto ad = RandomFloats(6, 1), bd = RandomFloats(12, 2);
  Tensor a = Tensor::from_vector(ad, Shape{2, 3}), b = Tensor::from_vector(bd, Shape{3, 4});
  ExpectAllNear(Tensor::einsum("ij,jk->ik", {a, b}).to_vector<float>(), a.matmul(b).to_vector<float>());
  ExpectAllNear(Tensor::einsum("ij,jk", {a, b}).to_vector<float>(), a.matmul(b).to_vector<float>());  // implicit
  ExpectAllNear(Tensor::einsum("ij,jk->ki", {a, b}).to_vector<float>(), a.matmul(b).transpose().to_vector<float>());
  ExpectAllNear(Tensor::einsum("ij->", {a}).to_vector<float>(), a.sum().to_vector<float>());
  EXPECT_EQ(Tensor::einsum("ij", {a}).shape(), (Shape{2, 3}));
  EXPECT_EQ(Tensor::einsum("ji", {a}).shape(), (Shape{3, 2}));  // implicit output is alphabetical
  Tensor sq = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{3, 3});
  EXPECT_EQ(Tensor::einsum("ii", {sq}).item<float>(), 15.0f);            // trace
  EXPECT_EQ(Tensor::einsum("ii->i", {sq}).to_vector<float>(), (std::vector<float>{1, 5, 9}));
  Tensor batch = Tensor::from_vector(RandomFloats(2 * 2 * 3, 3), Shape{2, 2, 3});
  ExpectAllNear(Tensor::einsum("...ij,jk->...ik", {batch, b}).to_vector<float>(), batch.matmul(b).to_vector<float>());
  ExpectAllNear(Tensor::einsum("bij,bkj->bik", {batch, batch}).to_vector<float>(),
                batch.matmul(batch.transpose(1, 2)).to_vector<float>());
  Tensor u = Tensor::from_vector<float>({1, 2}), w = Tensor::from_vector<float>({3, 4, 5});
  EXPECT_EQ(Tensor::einsum("i,j->ij", {u, w}).to_vector<float>(), (std::vector<float>{3, 4, 5, 6, 8, 10}));
}

TEST(Einsum, GradientAndErrors) {
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{2, 2}).requires_grad(true);
  Tensor::einsum("ii->", {a}).backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{1, 0, 0, 1}));
  Tensor b = Tensor::ones({2, 3});
  EXPECT_THROW(Tensor::einsum("ij,jk->ik", {b}), Error);        // operand count
  EXPECT_THROW(Tensor::einsum("ij,jk->ik", {b, b}), Error);     // j has two sizes
  EXPECT_THROW(Tensor::einsum("ijk", {b}), Error);              // rank mismatch
  EXPECT_THROW(Tensor::einsum("ij->iz", {b}), Error);           // unknown output letter
  EXPECT_THROW(b.topk(4), Error);                               // k too big
  EXPECT_THROW(b.sort(2), Error);                               // bad axis
}

}  // namespace
}  // namespace tg
