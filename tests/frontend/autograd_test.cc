// Autograd: closed-form gradients, finite differences in float64, accumulation and the errors.
#include <cmath>
#include <functional>

#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::RandomFloats;

TEST(Autograd, SquareSum) {
  auto data = RandomFloats(12, 1);
  Tensor x = Tensor::from_vector(data, Shape{3, 4}).requires_grad(true);
  (x * x).sum().backward();
  std::vector<float> want;
  for (float v : data) want.push_back(2 * v);
  ExpectAllNear(x.grad().to_vector<float>(), want);
}

TEST(Autograd, BroadcastGradientsSumOverBroadcastAxes) {
  Tensor a = Tensor::ones({2, 3}).requires_grad(true);
  Tensor b = Tensor::from_vector<float>({1, 2, 3}).requires_grad(true);
  (a * b).sum().backward();
  EXPECT_EQ(b.grad().shape(), Shape{3});
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
}

TEST(Autograd, MatmulReluMatchesHandDerivation) {
  auto xd = RandomFloats(4 * 5, 2), wd = RandomFloats(5 * 3, 3);
  Tensor x = Tensor::from_vector(xd, Shape{4, 5});
  Tensor w = Tensor::from_vector(wd, Shape{5, 3}).requires_grad(true);
  x.matmul(w).relu().sum().backward();
  // d/dw = x^T @ (xw > 0)
  std::vector<float> want(15, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      float y = 0;
      for (int k = 0; k < 5; ++k) y += xd[i * 5 + k] * wd[k * 3 + j];
      if (y > 0)
        for (int k = 0; k < 5; ++k) want[k * 3 + j] += xd[i * 5 + k];
    }
  ExpectAllNear(w.grad().to_vector<float>(), want);
}

TEST(Autograd, MaxSplitsTiesLikeTinygrad) {
  Tensor x = Tensor::from_vector<float>({1, 3, 3, 2}).requires_grad(true);
  x.max().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 0.5f, 0.5f, 0}));
  Tensor a = Tensor::from_vector<float>({1, 5}).requires_grad(true), b = Tensor::from_vector<float>({1, 2}).requires_grad(true);
  a.maximum(b).sum().backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{0.5f, 1}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{0.5f, 0}));
}

// Central differences in float64 against the analytic gradient of a function exercising every rule.
void CheckFiniteDifferences(const std::function<Tensor(const Tensor&)>& f, const std::vector<double>& x0,
                            const Shape& shape) {
  Tensor x = Tensor::from_vector(x0, shape).requires_grad(true);
  f(x).backward();
  std::vector<double> analytic = x.grad().to_vector<double>();
  const double h = 1e-6;
  for (size_t i = 0; i < x0.size(); ++i) {
    std::vector<double> plus = x0, minus = x0;
    plus[i] += h;
    minus[i] -= h;
    double fp = f(Tensor::from_vector(plus, shape)).item<double>();
    double fm = f(Tensor::from_vector(minus, shape)).item<double>();
    EXPECT_NEAR(analytic[i], (fp - fm) / (2 * h), 1e-5 * std::max(1.0, std::abs(analytic[i]))) << "element " << i;
  }
}

TEST(Autograd, FiniteDifferencesUnaryChain) {
  std::vector<double> x0 = {0.3, 1.2, 0.7, 2.1, 0.9, 1.6};
  CheckFiniteDifferences(
      [](const Tensor& x) { return ((x.exp() + 1).log() * x.sqrt() / (x + 0.5) + x.sin()).sum(); }, x0, {2, 3});
}

TEST(Autograd, FiniteDifferencesMovementAndReduce) {
  std::vector<double> x0 = {0.3, -1.2, 0.7, 2.1, -0.9, 1.6, 0.25, -0.4};
  CheckFiniteDifferences(
      [](const Tensor& x) {
        Tensor y = x.reshape({2, 4}).permute({1, 0}).pad({{1, 0}, {0, 2}}).shrink({{0, 4}, {1, 4}}).flip({0});
        Tensor z = y.expand({3, 4, 3}) * x.reshape({2, 4}).sum({0}).reshape({1, 4, 1});
        return (z.max({2}) * z.sum({0}).mean({1})).sum() + x.reciprocal().sum() * 0.01;
      },
      x0, {8});
}

TEST(Autograd, AccumulatesUntilCleared) {
  Tensor x = Tensor::from_vector<float>({1, 2}).requires_grad(true);
  (x * 3).sum().backward();
  (x * 3).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{6, 6}));
  x.clear_grad();
  EXPECT_FALSE(x.has_grad());
}

TEST(Autograd, GradientLeavesGradAloneAndDetachStopsFlow) {
  Tensor x = Tensor::from_vector<float>({1, 2}).requires_grad(true);
  Tensor y = (x * x + x.detach() * 5).sum();
  std::vector<Tensor> g = y.gradient({x});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_FALSE(x.has_grad());
  Tensor unrelated = Tensor::ones({3});
  EXPECT_EQ(y.gradient({unrelated})[0].to_vector<float>(), std::vector<float>(3, 0.0f));
}

TEST(Autograd, Errors) {
  EXPECT_THROW(Tensor::ones({2}, dtypes::int32).requires_grad(true), Error);
  Tensor x = Tensor::ones({2}).requires_grad(true);
  EXPECT_THROW((x * 2).backward(), Error);  // not a scalar
  EXPECT_THROW(x.grad(), Error);            // none yet
  EXPECT_THROW((x * 2).sum().gradient({Tensor::ones({2}, dtypes::int32)}), Error);
}

}  // namespace
}  // namespace tg
