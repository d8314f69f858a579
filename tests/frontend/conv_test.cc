// conv2d (1-D/2-D/3-D, groups, stride, dilation, asymmetric padding), conv_transpose2d, pooling and
// interpolate against direct loops written here, plus float64 finite-difference gradients and errors.
#include <functional>

#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using testing::ExpectAllNear;
using testing::RandomFloats;

// Direct N-D convolution over row-major data; pads are (before, after) per spatial axis.
std::vector<float> NaiveConv(const std::vector<float>& x, const Shape& xs, const std::vector<float>& w, const Shape& ws,
                             int64_t groups, const std::vector<int64_t>& s, const std::vector<int64_t>& d,
                             const std::vector<std::pair<int64_t, int64_t>>& p, Shape* out_shape) {
  size_t n = xs.size() - 2;
  int64_t bs = xs[0], cin = ws[1], cout = ws[0], per = cout / groups;
  Shape o(n);
  for (size_t i = 0; i < n; ++i) o[i] = (xs[2 + i] + p[i].first + p[i].second - d[i] * (ws[2 + i] - 1) - 1) / s[i] + 1;
  *out_shape = {bs, cout};
  out_shape->insert(out_shape->end(), o.begin(), o.end());
  int64_t on = 1, kn = 1, in = 1;
  for (size_t i = 0; i < n; ++i) on *= o[i], kn *= ws[2 + i], in *= xs[2 + i];
  std::vector<float> out(bs * cout * on, 0.0f);
  for (int64_t b = 0; b < bs; ++b)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t op = 0; op < on; ++op)
        for (int64_t ci = 0; ci < cin; ++ci)
          for (int64_t kp = 0; kp < kn; ++kp) {
            int64_t orest = op, krest = kp, flat = 0;
            bool inside = true;
            for (size_t i = n; i-- > 0;) {
              int64_t oi = orest % o[i], ki = krest % ws[2 + i];
              orest /= o[i], krest /= ws[2 + i];
              int64_t xi = oi * s[i] + ki * d[i] - p[i].first;
              inside = inside && xi >= 0 && xi < xs[2 + i];
              int64_t stride = 1;
              for (size_t j = i + 1; j < n; ++j) stride *= xs[2 + j];
              flat += xi * stride;
            }
            if (!inside) continue;
            int64_t cx = (co / per) * cin + ci;
            out[(b * cout + co) * on + op] += x[(b * xs[1] + cx) * in + flat] * w[(co * cin + ci) * kn + kp];
          }
  return out;
}

struct ConvCase {
  Shape xs, ws;
  int64_t groups;
  std::vector<int64_t> s, d;
  std::vector<std::pair<int64_t, int64_t>> p;
};

TEST(Conv, MatchesDirectLoops) {
  std::vector<ConvCase> cases = {
      {{2, 3, 7}, {4, 3, 3}, 1, {2}, {1}, {{1, 2}}},                          // 1-D, asymmetric padding
      {{1, 4, 6, 5}, {6, 2, 3, 2}, 2, {1, 2}, {2, 1}, {{1, 1}, {0, 2}}},      // 2-D groups, stride, dilation
      {{1, 2, 4, 4, 3}, {2, 1, 2, 2, 2}, 2, {1, 1, 1}, {1, 1, 1}, {{0, 0}, {1, 0}, {0, 1}}},  // 3-D depthwise
      {{1, 1, 5, 5}, {1, 1, 5, 5}, 1, {1, 1}, {1, 1}, {{0, 0}, {0, 0}}},      // kernel as big as the input
  };
  uint32_t seed = 1;
  for (const ConvCase& c : cases) {
    int64_t xn = 1, wn = 1;
    for (int64_t v : c.xs) xn *= v;
    for (int64_t v : c.ws) wn *= v;
    auto xd = RandomFloats(xn, seed++), wd = RandomFloats(wn, seed++);
    Shape want_shape;
    auto want = NaiveConv(xd, c.xs, wd, c.ws, c.groups, c.s, c.d, c.p, &want_shape);
    std::vector<int64_t> flat;  // PyTorch order: last axis first
    for (size_t i = c.p.size(); i-- > 0;) flat.push_back(c.p[i].first), flat.push_back(c.p[i].second);
    Tensor got = Tensor::from_vector(xd, c.xs).conv2d(Tensor::from_vector(wd, c.ws), std::nullopt, c.groups, c.s, c.d, flat);
    ASSERT_EQ(got.shape(), want_shape);
    ExpectAllNear(got.to_vector<float>(), want, 1e-4f);
  }
}

TEST(Conv, BiasAndSymmetricPadding) {
  Tensor x = Tensor::ones({1, 1, 3, 3}), w = Tensor::ones({2, 1, 3, 3});
  Tensor y = x.conv2d(w, Tensor::from_vector<float>({10, 20}), 1, 1, 1, 1);
  EXPECT_EQ(y.shape(), (Shape{1, 2, 3, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{14, 16, 14, 16, 19, 16, 14, 16, 14, 24, 26, 24, 26, 29, 26, 24, 26, 24}));
}

TEST(Conv, TransposeIsTheAdjointOfConv) {
  // <conv(x, w), y> == <x, conv_transpose(y, w)> for matching stride/padding/dilation.
  Shape xs = {1, 2, 7, 6}, ws = {3, 2, 3, 2};
  auto xd = RandomFloats(84, 11), wd = RandomFloats(36, 12);
  Tensor x = Tensor::from_vector(xd, xs), w = Tensor::from_vector(wd, ws);
  Tensor y = x.conv2d(w, std::nullopt, 1, {2, 1}, {1, 2}, {1, 0});
  Tensor r = Tensor::from_vector(RandomFloats(y.numel(), 13), y.shape());
  Tensor back = r.conv_transpose2d(w, std::nullopt, 1, {2, 1}, {1, 2}, {1, 0}, {0, 0});
  ASSERT_EQ(back.shape(), xs);
  EXPECT_NEAR((y * r).sum().item<float>(), (x * back).sum().item<float>(), 1e-3);
  // output_padding adds rows at the end; groups split the channels
  Tensor g = Tensor::ones({1, 4, 3}).conv_transpose2d(Tensor::ones({4, 1, 2}), std::nullopt, 2, 2, 1, 0, 1);
  EXPECT_EQ(g.shape(), (Shape{1, 2, 7}));
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{2, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 0}));
}

TEST(Pool, AvgAndMax) {
  std::vector<float> v(25);
  for (int i = 0; i < 25; ++i) v[i] = static_cast<float>(i);
  Tensor t = Tensor::from_vector(v, Shape{1, 1, 5, 5});
  EXPECT_EQ(t.max_pool2d().to_vector<float>(), (std::vector<float>{6, 8, 16, 18}));
  EXPECT_EQ(t.max_pool2d({2, 2}, {}, 1, 0, true).to_vector<float>(), (std::vector<float>{6, 8, 9, 16, 18, 19, 21, 23, 24}));
  EXPECT_EQ(t.avg_pool2d().to_vector<float>(), (std::vector<float>{3, 5, 13, 15}));
  EXPECT_EQ(t.max_pool2d(3, 2, 1, 1).to_vector<float>(), (std::vector<float>{6, 8, 9, 16, 18, 19, 21, 23, 24}));
  // count_include_pad: corner window of a 3x3 pool with padding 1 has 4 real elements out of 9
  Tensor ones = Tensor::ones({1, 1, 3, 3});
  EXPECT_NEAR(ones.avg_pool2d(3, 1, 1, 1).to_vector<float>()[0], 4.0f / 9, 1e-6);
  EXPECT_NEAR(ones.avg_pool2d(3, 1, 1, 1, false, false).to_vector<float>()[0], 1.0f, 1e-6);
  // ceil_mode windows that hang over the edge divide by the elements they cover
  EXPECT_EQ(t.avg_pool2d({2, 2}, {}, 1, 0, true).to_vector<float>(),
            (std::vector<float>{3, 5, 6.5f, 13, 15, 16.5f, 20.5f, 22.5f, 24}));
  EXPECT_EQ(t.avg_pool2d(2).shape(), (Shape{1, 1, 2, 2}));  // a plain int: a square kernel
  EXPECT_EQ(t.avg_pool2d({2}).shape(), (Shape{1, 1, 5, 2}));  // a one-element list: a 1-D kernel
  Tensor d = Tensor::from_vector<float>({1, 5, 2, 5, 3, 0}, Shape{1, 1, 6}).max_pool2d({3}, {3});
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{5, 5}));
}

TEST(Pool, MaxWithIndices) {
  Tensor t = Tensor::from_vector<float>({1, 9, 3, 4, 5, 6, 9, 8, 0, 2, 7, 7, 1, 1, 1, 3}, Shape{1, 1, 4, 4});
  auto [v, i] = t.max_pool2d_with_indices();
  EXPECT_EQ(v.to_vector<float>(), (std::vector<float>{9, 9, 2, 7}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{1, 6, 9, 10}));  // first max wins on ties
}

TEST(Interpolate, NearestAndLinear) {
  Tensor t = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 4});
  EXPECT_EQ(t.interpolate({2}, "nearest").to_vector<float>(), (std::vector<float>{1, 3}));
  EXPECT_EQ(t.interpolate({8}, "nearest").to_vector<float>(), (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4}));
  // half-pixel centres: x_src = (o + 0.5) * 4/8 - 0.5, clamped
  testing::ExpectAllNear(t.interpolate({8}).to_vector<float>(), {1, 1.25f, 1.75f, 2.25f, 2.75f, 3.25f, 3.75f, 4});
  testing::ExpectAllNear(t.interpolate({7}, "linear", true).to_vector<float>(), {1, 1.5f, 2, 2.5f, 3, 3.5f, 4});
  Tensor m = Tensor::from_vector<float>({1, 2, 3, 4}, Shape{1, 1, 2, 2});
  testing::ExpectAllNear(m.interpolate({3, 3}, "linear", true).to_vector<float>(), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

void CheckGrad(const std::function<Tensor(const Tensor&)>& f, const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> x0(n);
  for (int64_t i = 0; i < n; ++i) x0[i] = std::sin(1.9 * i + 0.1) * 2;
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

Tensor Fixed(const Shape& s, double scale) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  std::vector<double> w(n);
  for (int64_t i = 0; i < n; ++i) w[i] = scale * std::cos(0.7 * i);
  return Tensor::from_vector(w, s);
}

TEST(Conv, GradientsByFiniteDifferences) {
  Tensor w = Fixed({4, 1, 2, 2}, 1.0);
  CheckGrad([&](const Tensor& x) { return WSum(x.conv2d(w, std::nullopt, 2, 2, 1, {1, 0, 0, 1})); }, {1, 2, 4, 3});
  Tensor x = Fixed({1, 2, 3, 3}, 1.0);
  CheckGrad([&](const Tensor& w2) { return WSum(x.conv2d(w2, std::nullopt, 1, 1, 2, 1)); }, {2, 2, 2, 2});
  CheckGrad([&](const Tensor& w3) { return WSum(x.conv_transpose2d(w3, std::nullopt, 1, 2, 1, 1)); }, {2, 1, 2, 2});
  CheckGrad([](const Tensor& t) { return WSum(t.max_pool2d(2, 1)) + WSum(t.avg_pool2d(2, 1, 1, 1, true)); }, {1, 1, 3, 3});
  CheckGrad([](const Tensor& t) { return WSum(t.interpolate({5, 3})); }, {1, 1, 2, 4});
}

TEST(Conv, Errors) {
  Tensor x = Tensor::ones({1, 3, 5, 5});
  EXPECT_THROW(x.conv2d(Tensor::ones({2, 2, 3, 3})), Error);                 // channels do not match
  EXPECT_THROW(x.conv2d(Tensor::ones({2, 3, 3})), Error);                    // rank mismatch
  EXPECT_THROW(x.conv2d(Tensor::ones({2, 3, 7, 7})), Error);                 // kernel bigger than input
  EXPECT_THROW(x.conv2d(Tensor::ones({2, 3, 3, 3}), std::nullopt, 1, {1, 1, 1}), Error);  // stride per axis
  EXPECT_THROW(x.conv2d(Tensor::ones({2, 3, 3, 3}), Tensor::ones({3})), Error);            // bias size
  EXPECT_THROW(x.avg_pool2d(2, 1, 1, {1, 1, 1}), Error);                     // bad padding length
  EXPECT_THROW(x.interpolate({2, 2}, "cubic"), Error);                       // unknown mode
  EXPECT_THROW(x.interpolate({2, 2}, "nearest", true), Error);               // align_corners needs linear
}

}  // namespace
}  // namespace tg
