// The schedule cache's key (compiler/schedule/graph_shape.h): equal exactly when two graphs differ
// in nothing but which buffers they read.
#include "compiler/schedule/graph_shape.h"

#include "absl/hash/hash.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

struct Shaped {
  GraphShape shape;
  std::vector<UOpRef> buffers;
};

Shaped ShapeOf(const std::vector<Tensor>& roots, const std::string& device = "CPU") {
  std::vector<UOpRef> uops, buffers;
  for (const Tensor& t : roots) uops.push_back(t.uop());
  GraphShape shape(uops, std::vector<std::string>(uops.size(), device), &buffers);
  return {std::move(shape), std::move(buffers)};
}

Tensor Realized(std::vector<float> v) { return Tensor::from_vector<float>(v).realize(); }

void ExpectSame(const GraphShape& a, const GraphShape& b) {
  EXPECT_TRUE(a == b);
  EXPECT_EQ(absl::HashOf(a), absl::HashOf(b));
}

TEST(GraphShape, OtherBuffersSameShape) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6}), c = Realized({7, 8, 9});
  Shaped first = ShapeOf({a * b + 1}), second = ShapeOf({b * c + 1});
  ExpectSame(first.shape, second.shape);
  ASSERT_EQ(first.buffers.size(), 2u);
  ASSERT_EQ(second.buffers.size(), 2u);
  EXPECT_EQ(first.buffers[1], second.buffers[0]);  // b: second in a*b, first in b*c
  EXPECT_NE(first.buffers[0], second.buffers[1]);
}

TEST(GraphShape, BuffersAreNumberedInWalkOrder) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6});
  Shaped ab = ShapeOf({a - b}), ba = ShapeOf({b - a});
  ExpectSame(ab.shape, ba.shape);  // the same subtraction of "first buffer" and "second buffer"
  ASSERT_EQ(ab.buffers.size(), 2u);
  EXPECT_EQ(ab.buffers[0], ba.buffers[1]);
  EXPECT_EQ(ab.buffers[1], ba.buffers[0]);
}

TEST(GraphShape, ABufferReadTwiceIsNotTwoBuffers) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6});
  Shaped twice = ShapeOf({a * b + a}), other = ShapeOf({a * b + b}), three = ShapeOf({a * b + Realized({0, 0, 0})});
  EXPECT_FALSE(twice.shape == other.shape);
  EXPECT_FALSE(twice.shape == three.shape);
  EXPECT_EQ(twice.buffers.size(), 2u);
  EXPECT_EQ(three.buffers.size(), 3u);
}

TEST(GraphShape, ConstantsSizesDtypesAndDevicesCount) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6});
  GraphShape plus_one = ShapeOf({a + 1}).shape;
  EXPECT_FALSE(plus_one == ShapeOf({b + 2}).shape);
  EXPECT_FALSE(plus_one == ShapeOf({Realized({1, 2, 3, 4}) + 1}).shape);
  EXPECT_FALSE(plus_one == ShapeOf({Tensor::from_vector<int32_t>({1, 2, 3}).realize() + 1}).shape);
  EXPECT_FALSE(plus_one == ShapeOf({b + 1}, "CPU:1").shape);
  ExpectSame(plus_one, ShapeOf({b + 1}).shape);
}

TEST(GraphShape, RootsCountInOrder) {
  Tensor a = Realized({1, 2, 3});
  Tensor x = a + 1, y = a * 2;
  EXPECT_FALSE(ShapeOf({x, y}).shape == ShapeOf({y, x}).shape);
  EXPECT_FALSE(ShapeOf({x}).shape == ShapeOf({x, x}).shape);
  Tensor c = Realized({3, 2, 1});
  ExpectSame(ShapeOf({x, y}).shape, ShapeOf({c + 1, c * 2}).shape);
  EXPECT_FALSE(ShapeOf({x, y}).shape == ShapeOf({c + 1, Realized({3, 2, 1}) * 2}).shape);
}

// Past the few dozen nodes a dispatch loop builds, positions move from a scanned list to a hash
// map: buffers read twice and walk order must come out the same either way.
TEST(GraphShape, LargeGraphsNumberBuffersAsSmallOnes) {
  auto chain = [](Tensor a, Tensor b) {
    Tensor x = a * b;
    for (int i = 0; i < 40; ++i) x = (i % 2 == 0 ? x + a : x * b) + static_cast<float>(i);
    return x;
  };
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6}), c = Realized({7, 8, 9});
  Shaped first = ShapeOf({chain(a, b)}), second = ShapeOf({chain(c, a)});
  ExpectSame(first.shape, second.shape);
  ASSERT_EQ(first.buffers.size(), 2u);
  ASSERT_EQ(second.buffers.size(), 2u);
  EXPECT_EQ(first.buffers[0], second.buffers[1]);
  EXPECT_FALSE(first.shape == ShapeOf({chain(a, a)}).shape);  // one buffer read in both places
}

}  // namespace
}  // namespace tg::compiler
