// Indexing (t[{...}]), setitem, gather/scatter/scatter_reduce, one_hot, masked_select and nonzero
// against hand-computed values (numpy semantics; out-of-range tensor indices read 0 as tinygrad).
#include <functional>

#include "tests/frontend/test_util.h"

namespace tg {
namespace {

Tensor Iota(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return Tensor::from_vector(v, shape);
}
std::vector<float> F(const Tensor& t) { return t.to_vector<float>(); }
Tensor I(std::vector<int32_t> v, std::optional<Shape> s = std::nullopt) { return Tensor::from_vector(v, s); }

TEST(Index, IntsSlicesNewAxisEllipsis) {
  Tensor t = Iota({3, 4});
  EXPECT_EQ(F(t[{1}]), (std::vector<float>{4, 5, 6, 7}));
  EXPECT_EQ((t[{1, 2}]).shape(), Shape{});
  EXPECT_EQ((t[{-1, -1}]).item<float>(), 11.0f);
  EXPECT_EQ(F(t[{Slice{0, 2}, Slice{.step = 2}}]), (std::vector<float>{0, 2, 4, 6}));
  EXPECT_EQ(F(t[{Slice{.step = -1}, 0}]), (std::vector<float>{8, 4, 0}));
  EXPECT_EQ(F(t[{1, Slice{3, 0, -2}}]), (std::vector<float>{7, 5}));
  EXPECT_EQ(F(t[{Slice{1, -1}, Slice{-3, 100}}]), (std::vector<float>{5, 6, 7}));
  EXPECT_EQ((t[{Slice{2, 1}}]).shape(), (Shape{0, 4}));
  EXPECT_EQ((t[{Slice{}, NewAxis}]).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ((t[{NewAxis, Ellipsis, NewAxis}]).shape(), (Shape{1, 3, 4, 1}));
  EXPECT_EQ(F(t[{Ellipsis, 1}]), (std::vector<float>{1, 5, 9}));
  EXPECT_EQ(F(t.index({Slice{.start = 1, .step = 3}, Slice{1, 4, 2}})), (std::vector<float>{5, 7}));
  EXPECT_EQ(Tensor::full({}, 2.0f)[{NewAxis}].shape(), (Shape{1}));
  EXPECT_EQ(F(Iota({2, 3}).permute({1, 0})[{Slice{.step = -2}}]), (std::vector<float>{2, 5, 0, 3}));
}

TEST(Index, TensorIndices) {
  Tensor t = Iota({3, 4});
  EXPECT_EQ(F(t[{I({2, 0, -1})}]), (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(F(t[{I({2, 0, 1}), I({1, 2, 3})}]), (std::vector<float>{9, 2, 7}));
  EXPECT_EQ(F(t[{Slice{}, I({3, 0})}]), (std::vector<float>{3, 0, 7, 4, 11, 8}));
  // broadcast index tensors: rows (2,1) with columns (2,) -> (2, 2)
  EXPECT_EQ(F(t[{I({0, 2}, Shape{2, 1}), I({1, 3})}]), (std::vector<float>{1, 3, 9, 11}));
  EXPECT_EQ(F(t[{I({5})}]), (std::vector<float>{0, 0, 0, 0}));  // out of range reads 0, as tinygrad
  // index tensors separated by a slice: the broadcast axes go first (numpy rule)
  Tensor c = Iota({2, 3, 4});
  Tensor r = c[{I({1, 0}), Slice{}, I({3, 2})}];
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(F(r), (std::vector<float>{15, 19, 23, 2, 6, 10}));
  EXPECT_EQ((c[{Slice{}, I({0, 1}), I({1, 2})}]).shape(), (Shape{2, 2}));
  EXPECT_EQ(F(c[{Slice{}, I({0, 1}), I({1, 2})}]), (std::vector<float>{1, 6, 13, 18}));
  EXPECT_EQ(F(c[{1, I({2}), Slice{1, 3}}]), (std::vector<float>{21, 22}));
}

TEST(Index, Setitem) {
  Tensor t = Iota({3, 4});
  Tensor alias = t;  // handles share state: both see the assignment
  t.setitem({1}, 0.0f);
  EXPECT_EQ(F(alias), (std::vector<float>{0, 1, 2, 3, 0, 0, 0, 0, 8, 9, 10, 11}));
  Tensor u = Iota({2, 5});
  u.setitem({Slice{}, Slice{.start = 4, .stop = 0, .step = -2}}, Tensor::from_vector<float>({-1, -2}));
  EXPECT_EQ(F(u), (std::vector<float>{0, 1, -2, 3, -1, 5, 6, -2, 8, -1}));
  Tensor v = Iota({5});
  v.setitem({I({1, 3, 1})}, Tensor::from_vector<float>({10, 30, 11}));  // repeated index: last wins
  EXPECT_EQ(F(v), (std::vector<float>{0, 11, 2, 30, 4}));
  Tensor w = Iota({3, 3});
  w.setitem({I({0, 2}), I({2, 0})}, 7.0f);
  EXPECT_EQ(F(w), (std::vector<float>{0, 1, 7, 3, 4, 5, 7, 7, 8}));
  Tensor s = Tensor::zeros({2, 3}, dtypes::int32);
  s.setitem({Ellipsis, NewAxis, 2}, 5);
  EXPECT_EQ(s.to_vector<int32_t>(), (std::vector<int32_t>{0, 0, 5, 0, 0, 5}));
}

TEST(Index, GatherScatter) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{2, 2});
  EXPECT_EQ(F(t.gather(1, I({0, 0, 1, 0}, Shape{2, 2}))), (std::vector<float>{1, 1, 4, 3}));
  EXPECT_EQ(F(t.gather(0, I({1, 0, 1}, Shape{1, 3}).shrink({{0, 1}, {0, 2}}))), (std::vector<float>{3, 2}));
  Tensor src = Iota({2, 5}) + 1;
  Tensor idx = I({0, 1, 2, 0}, Shape{1, 4});
  EXPECT_EQ(F(Tensor::zeros({3, 5}).scatter(0, idx, src)),
            (std::vector<float>{1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}));
  EXPECT_EQ(F(Tensor::zeros({2, 4}).scatter(1, I({1, 2}, Shape{2, 1}), 1.5f)), (std::vector<float>{0, 1.5f, 0, 0, 0, 0, 1.5f, 0}));
  EXPECT_EQ(F(Tensor::ones({4}).scatter(0, I({1, 1, 3}), 2.0f, "add")), (std::vector<float>{1, 5, 1, 3}));
  Tensor base = Tensor::from_vector<float>({1, 2, 3, 4});
  Tensor s2 = Tensor::from_vector<float>({5, 6, 7, 8, 9});
  Tensor i2 = I({0, 1, 0, 1, 2});
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "sum")), (std::vector<float>{13, 16, 12, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "sum", false)), (std::vector<float>{12, 14, 9, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "prod")), (std::vector<float>{35, 96, 27, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "amax")), (std::vector<float>{7, 8, 9, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "amin", false)), (std::vector<float>{5, 6, 9, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "mean")), (std::vector<float>{13.f / 3, 16.f / 3, 6, 4}));
  EXPECT_EQ(F(base.scatter_reduce(0, i2, s2, "mean", false)), (std::vector<float>{6, 7, 9, 4}));
}

TEST(Index, OneHotMaskedSelectNonzero) {
  EXPECT_EQ(I({0, 2}).one_hot(3).to_vector<int32_t>(), (std::vector<int32_t>{1, 0, 0, 0, 0, 1}));
  Tensor t = Iota({2, 3});
  Tensor mask = Tensor::from_vector<bool>({true, false, true}).reshape({1, 3});
  EXPECT_EQ(F(t.masked_select(mask)), (std::vector<float>{0, 2, 3, 5}));
  EXPECT_EQ(t.masked_select(Tensor::zeros({2, 3}, dtypes::bool_)).shape(), (Shape{0}));
  Tensor nz = Tensor::from_vector<float>({0, 1, 0, 2}, Shape{2, 2}).nonzero();
  EXPECT_EQ(nz.shape(), (Shape{2, 2}));
  EXPECT_EQ(nz.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1, 1}));
  EXPECT_EQ(Tensor::zeros({3}).nonzero().shape(), (Shape{0, 1}));
}

void CheckGrad(const std::function<Tensor(const Tensor&)>& f, const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> x0(n);
  for (int64_t i = 0; i < n; ++i) x0[i] = std::sin(1.7 * i + 0.3) * 2;
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

Tensor WSum(const Tensor& y) {
  std::vector<double> w(y.numel());
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5 + 0.25 * (i % 5);
  return (y * Tensor::from_vector(w, y.shape())).sum();
}

TEST(Index, GradientsByFiniteDifferences) {
  CheckGrad([](const Tensor& x) { return WSum(x[{Slice{.step = -2}, 1}]); }, {5, 3});
  CheckGrad([](const Tensor& x) { return WSum(x[{I({2, 0, 2}), Slice{1, 3}}]); }, {3, 3});
  CheckGrad([](const Tensor& x) { return WSum(x[{I({2, 0}), I({1, 1})}]); }, {3, 3});
  CheckGrad([](const Tensor& x) { return WSum(x.gather(1, I({2, 0, 1, 1}, Shape{2, 2}))); }, {2, 3});
  CheckGrad([](const Tensor& x) { return WSum(Tensor::zeros({2, 3}, dtypes::float64).scatter(1, I({2, 0}, Shape{2, 1}), x)); }, {2, 2});
  CheckGrad([](const Tensor& x) { return WSum(x.scatter_reduce(0, I({0, 0, 2}), x * 2, "amax")); }, {3});
  CheckGrad([](const Tensor& x) {
    Tensor y = x * 1;
    y.setitem({Slice{1, 3}}, x[{Slice{0, 2}}] * 3);
    return WSum(y);
  }, {4});
  CheckGrad([](const Tensor& x) { return WSum(x.masked_select(x > 0)); }, {6});
}

TEST(Index, Errors) {
  Tensor t = Iota({3, 4});
  EXPECT_THROW(t[{3}], Error);                         // constant index out of bounds
  EXPECT_THROW(t[{-4}], Error);
  EXPECT_THROW((t[{0, 0, 0}]), Error);                   // too many indices
  EXPECT_THROW((t[{Ellipsis, Ellipsis}]), Error);        // two ellipses
  EXPECT_THROW(t[{Slice{.step = 0}}], Error);          // zero step
  EXPECT_THROW(t[{Iota({2})}], Error);                 // float index tensor
  EXPECT_THROW((t[{I({0, 1}), I({0, 1, 2})}]), Error);   // index tensors that do not broadcast
  EXPECT_THROW(t.setitem({0}, Tensor::zeros({4}, dtypes::int32)), Error);  // dtype mismatch
  EXPECT_THROW(t.gather(0, I({0, 1})), Error);                          // rank mismatch
  EXPECT_THROW(t.scatter_reduce(0, I({0}, Shape{1, 1}), t, "median"), Error);
  EXPECT_THROW(t.masked_select(t), Error);                  // float mask
  EXPECT_THROW(Iota({2}).one_hot(3), Error);                // float one_hot
}

}  // namespace
}  // namespace tg
