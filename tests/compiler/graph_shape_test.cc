// The schedule cache's key (compiler/schedule/graph_shape.h): equal exactly when two graphs differ
// in nothing but which buffers they read.
#include "compiler/schedule/graph_shape.h"

#include "absl/container/flat_hash_map.h"
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
  std::vector<std::string> devices(uops.size(), device);
  GraphWalk walk(uops, devices);
  GraphShape shape(walk);
  buffers = walk.TakeBuffers();
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

// The cache looks a walk up without making a shape of it: a walk equals, and hashes like, the shape
// of every graph that differs from it only in its buffers, and no other.
TEST(GraphShape, AWalkMatchesTheShapesItWouldMake) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6}), c = Realized({7, 8, 9});
  std::vector<std::string> cpu = {"CPU"};
  GraphShape kept = ShapeOf({a * b + 1}).shape;
  // A walk borrows its graph: the tensors outlive the walks of them.
  Tensor same = b * c + 1, other_constant = b * c + 2, other_op = b + c + 1, one_buffer = b * b + 1;
  Tensor other_size = b * Realized({1, 2, 3, 4}).shrink({{0, 3}}) + 1;
  auto walk = [&](const Tensor& t) { return GraphWalk({t.uop()}, cpu); };
  GraphWalk same_walk = walk(same);
  EXPECT_TRUE(kept == same_walk);
  EXPECT_EQ(kept.hash(), same_walk.hash());
  EXPECT_TRUE(GraphShape(same_walk) == kept);
  EXPECT_FALSE(kept == walk(other_constant));
  EXPECT_FALSE(kept == walk(other_op));
  EXPECT_FALSE(kept == walk(one_buffer));
  EXPECT_FALSE(kept == walk(other_size));
  std::vector<std::string> second_cpu = {"CPU:1"};
  EXPECT_FALSE(kept == GraphWalk({same.uop()}, second_cpu));
}

TEST(GraphShape, AMapKeyedByShapesIsSearchedByWalks) {
  Tensor a = Realized({1, 2, 3}), b = Realized({4, 5, 6});
  std::vector<std::string> cpu = {"CPU"};
  absl::flat_hash_map<GraphShape, int, GraphShapeHash, GraphShapeEq> map;
  Tensor kept = a - b, hit_graph = b - a, miss_graph = b + a;
  map.emplace(GraphShape(GraphWalk({kept.uop()}, cpu)), 7);
  GraphWalk hit({hit_graph.uop()}, cpu), miss({miss_graph.uop()}, cpu);
  ASSERT_NE(map.find(hit), map.end());
  EXPECT_EQ(map.find(hit)->second, 7);
  EXPECT_EQ(map.find(miss), map.end());
  std::vector<UOpRef> buffers = hit.TakeBuffers();
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0], b.uop());
}

}  // namespace
}  // namespace tg::compiler
