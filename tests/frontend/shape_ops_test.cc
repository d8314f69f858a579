// High-level movement ops against hand-computed values, their gradients (float64 finite differences)
// and their errors.
#include <functional>

#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;

Tensor Iota(const Shape& shape) {  // 0, 1, 2, ... as float32
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return Tensor::from_vector(v, shape);
}

std::vector<float> F(const Tensor& t) { return t.to_vector<float>(); }

TEST(ShapeOps, SqueezeUnsqueezeFlattenUnflatten) {
  Tensor t = Iota({2, 1, 3, 1});
  EXPECT_EQ(t.squeeze().shape(), (Shape{2, 3}));
  EXPECT_EQ(t.squeeze(1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(t.squeeze(0).shape(), (Shape{2, 1, 3, 1}));
  EXPECT_EQ(t.unsqueeze(-1).shape(), (Shape{2, 1, 3, 1, 1}));
  EXPECT_EQ(t.unsqueeze(0).shape(), (Shape{1, 2, 1, 3, 1}));
  EXPECT_EQ(t.flatten(1, 2).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(Tensor::full({}, 3.0f).flatten().shape(), (Shape{1}));
  EXPECT_EQ(Iota({6}).unflatten(0, {2, -1}).shape(), (Shape{2, 3}));
  EXPECT_EQ(Tensor::full({}, 1.0f).unsqueeze(0).shape(), (Shape{1}));
}

TEST(ShapeOps, CatStack) {
  Tensor a = Iota({2, 2}), b = Iota({2, 1}) + 10;
  EXPECT_EQ(F(a.cat({b}, 1)), (std::vector<float>{0, 1, 10, 2, 3, 11}));
  EXPECT_EQ(F(a.cat({a}, 0)), (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3}));
  Tensor empty = Tensor::zeros({0, 2});
  EXPECT_EQ(F(a.cat({empty}, 0)), F(a));
  EXPECT_EQ(a.stack({a, a}, 1).shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(F(Iota({2}).stack({Iota({2}) + 5}, 1)), (std::vector<float>{0, 5, 1, 6}));
  Tensor bools = Tensor::from_vector<bool>({true, false});
  EXPECT_EQ(bools.cat({bools}).to_vector<bool>(), (std::vector<bool>{true, false, true, false}));
  // scalars stack into a vector
  EXPECT_EQ(F(Tensor::full({}, 1.0f).stack({Tensor::full({}, 2.0f)})), (std::vector<float>{1, 2}));
}

TEST(ShapeOps, RepeatRepeatInterleaveRoll) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3});
  EXPECT_EQ(F(t.repeat({2, 2})), (std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(t.repeat({2, 2}).shape(), (Shape{2, 6}));
  EXPECT_EQ(F(t.repeat_interleave(2)), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(F(Iota({2, 2}).repeat_interleave(2, 0)), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(F(t.roll(1)), (std::vector<float>{3, 1, 2}));
  EXPECT_EQ(F(t.roll(-4, 0)), (std::vector<float>{2, 3, 1}));
  EXPECT_EQ(F(Iota({2, 3}).roll({1, 1}, {0, 1})), (std::vector<float>{5, 3, 4, 2, 0, 1}));
  EXPECT_EQ(F(Iota({2, 3}).roll(1)), (std::vector<float>{5, 0, 1, 2, 3, 4}));
}

TEST(ShapeOps, SplitChunkUnfold) {
  auto parts = Iota({5, 2}).split(2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].shape(), (Shape{1, 2}));
  EXPECT_EQ(F(parts[1]), (std::vector<float>{4, 5, 6, 7}));
  auto sized = Iota({5, 2}).split(std::vector<int64_t>{1, 4});
  EXPECT_EQ(sized[1].shape(), (Shape{4, 2}));
  auto chunks = Iota({11}).chunk(6);
  ASSERT_EQ(chunks.size(), 6u);
  EXPECT_EQ(chunks[5].shape(), (Shape{1}));
  EXPECT_EQ(Iota({13}).chunk(6).size(), 5u);  // ceil(13/6) = 3 per chunk -> 5 chunks, as torch
  Tensor u = Iota({8}).unfold(0, 3, 2);
  EXPECT_EQ(u.shape(), (Shape{3, 3}));
  EXPECT_EQ(F(u), (std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  Tensor u2 = Iota({3, 3, 3}).unfold(-1, 2, 3);
  EXPECT_EQ(u2.shape(), (Shape{3, 3, 1, 2}));
  EXPECT_EQ(F(u2).back(), 25.0f);
  Tensor u3 = Iota({4, 2}).unfold(0, 2, 1);  // windows along axis 0 land in the last axis
  EXPECT_EQ(u3.shape(), (Shape{3, 2, 2}));
  EXPECT_EQ(F(u3[{0}]), (std::vector<float>{0, 2, 1, 3}));
}

TEST(ShapeOps, DiagDiagonalTrilTriuMeshgrid) {
  EXPECT_EQ(F(Tensor::from_vector<float>({1, 2, 3}).diag()), (std::vector<float>{1, 0, 0, 0, 2, 0, 0, 0, 3}));
  Tensor m = Iota({3, 4});
  EXPECT_EQ(F(m.diagonal()), (std::vector<float>{0, 5, 10}));
  EXPECT_EQ(F(m.diagonal(1)), (std::vector<float>{1, 6, 11}));
  EXPECT_EQ(F(m.diagonal(-1)), (std::vector<float>{4, 9}));
  EXPECT_EQ(m.diagonal(7).shape(), (Shape{0}));
  EXPECT_EQ(F(Iota({2, 2, 2}).diagonal(0, 1, 2)), (std::vector<float>{0, 3, 4, 7}));
  EXPECT_EQ(F(Iota({3, 3}).triu()), (std::vector<float>{0, 1, 2, 0, 4, 5, 0, 0, 8}));
  EXPECT_EQ(F(Iota({3, 3}).tril(-1)), (std::vector<float>{0, 0, 0, 3, 0, 0, 6, 7, 0}));
  EXPECT_EQ(F(Iota({2, 3}).triu(1)), (std::vector<float>{0, 1, 2, 0, 0, 5}));
  auto g = Tensor::meshgrid({Tensor::from_vector<float>({1, 2, 3}), Tensor::from_vector<float>({4, 5})});
  EXPECT_EQ(g[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(F(g[0]), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(F(g[1]), (std::vector<float>{4, 5, 4, 5, 4, 5}));
  auto xy = Tensor::meshgrid({Tensor::from_vector<float>({1, 2, 3}), Tensor::from_vector<float>({4, 5})}, "xy");
  EXPECT_EQ(xy[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(F(xy[0]), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(ShapeOps, PadModes) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3, 4});
  EXPECT_EQ(F(t.pad({{2, 1}}, "reflect")), (std::vector<float>{3, 2, 1, 2, 3, 4, 3}));
  EXPECT_EQ(F(t.pad({{2, 1}}, "replicate")), (std::vector<float>{1, 1, 1, 2, 3, 4, 4}));
  EXPECT_EQ(F(t.pad({{2, 1}}, "circular")), (std::vector<float>{3, 4, 1, 2, 3, 4, 1}));
  EXPECT_EQ(F(t.pad({{1, 1}}, "constant", 7)), (std::vector<float>{7, 1, 2, 3, 4, 7}));
  EXPECT_EQ(F(t.pad({{-1, 2}}, "reflect")), (std::vector<float>{2, 3, 4, 3, 2}));
  EXPECT_EQ(F(t.pad({{-1, 1}}, "circular")), (std::vector<float>{2, 3, 4, 2}));
  Tensor m = Iota({2, 3});
  EXPECT_EQ(F(m.pad({{1, 0}, {1, 1}}, "reflect")), (std::vector<float>{4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4}));
}

// Central differences in float64 against backward() of f(x).
void CheckGrad(const std::function<Tensor(const Tensor&)>& f, const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> x0(n);
  for (int64_t i = 0; i < n; ++i) x0[i] = std::sin(1.3 * i + 0.2) * 2;
  Tensor x = Tensor::from_vector(x0, shape).requires_grad(true);
  f(x).backward();
  std::vector<double> g = x.grad().to_vector<double>();
  const double h = 1e-6;
  for (int64_t i = 0; i < n; ++i) {
    auto p = x0, m = x0;
    p[i] += h, m[i] -= h;
    double fd = (f(Tensor::from_vector(p, shape)).item<double>() - f(Tensor::from_vector(m, shape)).item<double>()) / (2 * h);
    EXPECT_NEAR(g[i], fd, 1e-5 * std::max(1.0, std::abs(fd))) << "element " << i;
  }
}

Tensor Weights(const Shape& shape) {  // fixed, non-uniform weights so every output position matters
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> w(n);
  for (int64_t i = 0; i < n; ++i) w[i] = 0.5 + 0.25 * (i % 7);
  return Tensor::from_vector(w, shape);
}

Tensor WSum(const Tensor& y) { return (y * Weights(y.shape())).sum(); }

TEST(ShapeOps, GradientsByFiniteDifferences) {
  CheckGrad([](const Tensor& x) { return WSum(x.cat({x * x}, 1)); }, {2, 3});
  CheckGrad([](const Tensor& x) { return WSum(x.stack({x.flip({0})}, 1)); }, {4});
  CheckGrad([](const Tensor& x) { return WSum(x.repeat({2, 1}).roll(1, 1)); }, {2, 3});
  CheckGrad([](const Tensor& x) { return WSum(x.unfold(0, 3, 2)); }, {7});
  CheckGrad([](const Tensor& x) { return WSum(x.pad({{2, 1}, {1, 1}}, "reflect")); }, {3, 3});
  CheckGrad([](const Tensor& x) { return WSum(x.pad({{1, 2}}, "replicate")); }, {3});
  CheckGrad([](const Tensor& x) { return WSum(x.pad({{1, 2}}, "circular")); }, {3});
  CheckGrad([](const Tensor& x) { return WSum(x.diagonal(1)) + WSum(x.tril()); }, {3, 4});
  CheckGrad([](const Tensor& x) { return WSum(x.split(2)[1]) + WSum(x.repeat_interleave(3)); }, {5});
}

TEST(ShapeOps, NonContiguousInputs) {
  Tensor t = Iota({3, 2}).permute({1, 0});  // [[0, 2, 4], [1, 3, 5]]
  EXPECT_EQ(F(t.cat({t}, 1)), (std::vector<float>{0, 2, 4, 0, 2, 4, 1, 3, 5, 1, 3, 5}));
  EXPECT_EQ(F(t.roll(1, 1)), (std::vector<float>{4, 0, 2, 5, 1, 3}));
  EXPECT_EQ(F(t.diagonal()), (std::vector<float>{0, 3}));
  Tensor e = Tensor::from_vector<float>({1, 2}).reshape({2, 1}).expand({2, 3});
  EXPECT_EQ(F(e.triu()), (std::vector<float>{1, 1, 1, 0, 2, 2}));
}

TEST(ShapeOps, Errors) {
  Tensor t = Iota({2, 3});
  EXPECT_THROW(t.cat({Iota({3, 3})}, 1), Error);          // mismatched shapes outside the axis
  EXPECT_THROW(t.stack({Iota({3, 2})}), Error);            // stack needs equal shapes
  EXPECT_THROW(t.unsqueeze(4), Error);                     // axis out of range
  EXPECT_THROW(t.split(std::vector<int64_t>{1, 2}), Error);  // sizes do not sum to the axis
  EXPECT_THROW(t.pad({{3, 0}, {0, 0}}, "reflect"), Error);  // reflect pad >= axis size
  EXPECT_THROW(t.pad({{0, 0}, {0, 0}}, "wrap"), Error);     // unknown mode
  EXPECT_THROW(t.unfold(1, 4, 1), Error);                   // window larger than the axis
  EXPECT_THROW(t.diagonal(0, 1, 1), Error);                 // same axis twice
  EXPECT_THROW(Iota({3}).tril(), Error);                    // needs 2 axes
  EXPECT_THROW(t.repeat({2}), Error);                       // fewer repeats than axes
}

}  // namespace
}  // namespace tg
