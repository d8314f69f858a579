// The spellings the public header accepts for shapes, axes, pads, index lists and per-axis ints, pinned:
// what compiles is asserted with requires-expressions (a trap that comes back fails the build of this
// test), and what each spelling means is checked at run time.
#include <cstddef>
#include <optional>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

// ---- what compiles (T is Tensor; the indirection keeps a failing expression a plain `false`) ----

template <class T>
concept FromVectorBracedShape = requires { T::template from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}); };
template <class T>
concept FromVectorDeduced = requires { T::from_vector({1.f, 2.f}); };
template <class T>
concept FromVectorNullopt = requires(std::vector<float> v) { T::from_vector(v, std::nullopt, "CPU"); };
template <class T>
concept FromVectorOptional = requires(std::vector<float> v, std::optional<Shape> s) { T::from_vector(v, s); };
template <class T>
concept FromVectorShape = requires(std::vector<float> v) { T::from_vector(v, Shape{2, 1}); };
template <class T>
concept CreationBracedShapes = requires {
  T::empty({2, 3});
  T::full({2, 3}, 1.5f);
  T::zeros({2, 3});
  T::ones({2, 3});
  T::rand({2, 3});
  T::randn({2, 3});
  T::randint({2, 3}, 0, 5);
  T::uniform({2, 3}, -1.0, 1.0);
  T::normal({2, 3});
  T::scaled_uniform({2, 3});
  T::glorot_uniform({2, 3});
  T::kaiming_uniform({2, 3});
  T::kaiming_normal({2, 3});
};
static_assert(FromVectorBracedShape<Tensor>);
static_assert(FromVectorDeduced<Tensor>);
static_assert(FromVectorNullopt<Tensor>);
static_assert(FromVectorOptional<Tensor>);
static_assert(FromVectorShape<Tensor>);
static_assert(CreationBracedShapes<Tensor>);

// Axes: one int, a braced list, a vector, or nothing.
template <class T>
concept AxesSpellings = requires(T t, std::vector<int> v) {
  t.sum(1);
  t.sum({0, 1}, true);
  t.sum({});
  t.sum(v);
  t.max(0);
  t.mean(-1, true);
  t.var(0, false, 0.0);
  t.flip(0);
  t.flip({0, 1});
  t.sum({0}, false, dtypes::float32);
};
static_assert(AxesSpellings<Tensor>);

// Shapes and orders are braced lists, never loose ints (there is no variadic reshape(2, 3)).
template <class T>
concept ReshapeBraced = requires(T t) { t.reshape({3, -1}); t.expand({4, 2, 3}); t.permute({1, 0}); };
template <class T>
concept ReshapeLooseInts = requires(T t) { t.reshape(2, 3); };
template <class T>
concept PermuteLooseInts = requires(T t) { t.permute(1, 0); };
static_assert(ReshapeBraced<Tensor>);
static_assert(!ReshapeLooseInts<Tensor>);
static_assert(!PermuteLooseInts<Tensor>);

// pad: a literal 0 fill is a value, not a null mode string.
template <class T>
concept PadZeroFill = requires(T t) { t.pad({{1, 1}, {0, 0}}, 0); t.pad({{1, 1}}, 2.5); t.pad({{1, 1}}, "reflect"); };
static_assert(PadZeroFill<Tensor>);

// Index lists: any integer type, braced; a bare int or a bool is not an index list.
template <class T>
concept IndexAnyInteger = requires(T t, std::size_t n, int64_t i, uint8_t b) { t[{n}]; t[{i, Slice{}}]; t[{b}]; };
template <class T>
concept IndexBareInt = requires(T t) { t[1]; };
template <class T>
concept IndexBool = requires(T t) { t[{true}]; };
static_assert(IndexAnyInteger<Tensor>);
static_assert(!IndexBareInt<Tensor>);
static_assert(!IndexBool<Tensor>);

// ---- what each spelling means ---------------------------------------------------------------

TEST(BracedArgs, FromVectorBracedShapeIsTheShape) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(x.shape(), (Shape{2, 3}));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Tensor::from_vector(std::vector<float>{1, 2}, Shape{2, 1}).shape(), (Shape{2, 1}));
  EXPECT_EQ(Tensor::from_vector(std::vector<float>{1, 2}, std::optional<Shape>{}).shape(), (Shape{2}));
  EXPECT_EQ(Tensor::from_vector(std::vector<float>{1, 2, 3}, std::nullopt, "CPU").shape(), (Shape{3}));
}

TEST(BracedArgs, EmptyBracesAreTheZeroDShape) {
  Tensor s = Tensor::from_vector<float>({5}, {});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(s.item<float>(), 5.0f);
  EXPECT_THROW(Tensor::from_vector<float>({1, 2}, {}), Error);  // two values do not fill a scalar
  EXPECT_EQ(Tensor::zeros({}).shape(), Shape{});
}

TEST(BracedArgs, FromVectorDeducesTheElementType) {
  EXPECT_EQ(Tensor::from_vector({1.f, 2.f}).dtype(), dtypes::float32);
  EXPECT_EQ(Tensor::from_vector({1.0, 2.0}).dtype(), dtypes::float64);  // the C++ type decides
  EXPECT_EQ(Tensor::from_vector({1, 2, 3}, {3, 1}).dtype(), dtypes::int32);
  EXPECT_EQ(Tensor::from_vector({true, false}).to_vector<bool>(), (std::vector<bool>{true, false}));
}

TEST(BracedArgs, CreationCallsTakeBracedShapes) {
  EXPECT_EQ(Tensor::full({2, 3}, 1.5f).to_vector<float>(), std::vector<float>(6, 1.5f));
  EXPECT_EQ(Tensor::ones({2, 3}).shape(), (Shape{2, 3}));
  EXPECT_EQ(Tensor::randn({3, 4}).shape(), (Shape{3, 4}));
  EXPECT_EQ(Tensor::randint({4}, 0, 3).dtype(), dtypes::int32);
}

TEST(BracedArgs, AxesSpellingsAgree) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(x.sum(1).to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(x.sum({1}).to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(x.sum(std::vector<int>{-1}).to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(x.sum({}).item<float>(), 21.0f);  // no axes: every axis, as sum()
  EXPECT_EQ(x.sum().item<float>(), 21.0f);
  EXPECT_EQ(x.max(0, true).shape(), (Shape{1, 3}));
  EXPECT_EQ(x.flip(0).to_vector<float>(), (std::vector<float>{4, 5, 6, 1, 2, 3}));
}

TEST(BracedArgs, PadWithLiteralZero) {
  Tensor x = Tensor::from_vector<float>({1, 2}, {1, 2});
  EXPECT_EQ(x.pad({{0, 0}, {1, 0}}, 0).to_vector<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(x.pad({{0, 0}, {0, 1}}, 7).to_vector<float>(), (std::vector<float>{1, 2, 7}));
}

TEST(BracedArgs, IndexWithUnsignedCounter) {
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  for (std::size_t row = 0; row < 2; ++row) EXPECT_EQ((x[{row, 0}]).item<float>(), 1.0f + 3.0f * row);
}

TEST(BracedArgs, IntOrTupleSpellings) {
  Tensor x = Tensor::ones({1, 1, 4, 4});
  EXPECT_EQ(x.avg_pool2d(2).shape(), (Shape{1, 1, 2, 2}));         // a plain int: square kernel
  EXPECT_EQ(x.avg_pool2d({2, 2}, {}).shape(), (Shape{1, 1, 2, 2}));  // {} stride: the kernel size
  EXPECT_EQ(x.avg_pool2d({2}).shape(), (Shape{1, 1, 4, 2}));       // {k}: a 1-D kernel, last axis
  EXPECT_EQ(x.max_pool2d({2, 2}, 1).shape(), (Shape{1, 1, 3, 3}));
  nn::Conv2d square(1, 2, 3), rect(1, 2, {3, 1});
  EXPECT_EQ(square.weight.shape(), (Shape{2, 1, 3, 3}));
  EXPECT_EQ(rect.weight.shape(), (Shape{2, 1, 3, 1}));
}

TEST(BracedArgs, LayerNormShapeSpellingsAgree) {
  EXPECT_EQ(nn::LayerNorm(4).normalized_shape, (Shape{4}));
  EXPECT_EQ(nn::LayerNorm({4}).normalized_shape, (Shape{4}));  // the int overload, same meaning
  EXPECT_EQ(nn::LayerNorm({2, 4}).normalized_shape, (Shape{2, 4}));
}

}  // namespace
}  // namespace tg
