// Gathers (Tensor::to of a sharded tensor) on the CPU plugin presented as three devices (TG_CPU_DEVICES=3,
// set by the BUILD target), so a gather can land on a device that holds no shard. Every shard is copied
// straight to the target (copy_d2d between these devices), and the result is bitwise the unsharded tensor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/gather.h"
#include "compiler/schedule/multi.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using tg::testing::ExpectAllNear;
using tg::testing::RandomFloats;

const std::vector<std::string> kTwo = {"CPU:0", "CPU:1"}, kThree = {"CPU:0", "CPU:1", "CPU:2"};

// Random floats with, here and there, the values an addition would not carry through unchanged:
// -0.0 (+ 0.0 gives +0.0), a NaN with a payload, infinities, a denormal.
std::vector<float> Awkward(size_t n, uint32_t seed) {
  std::vector<float> v = RandomFloats(n, seed);
  uint32_t nan_bits = 0x7fc01234u;
  float nan;
  std::memcpy(&nan, &nan_bits, sizeof nan);
  const float special[] = {-0.0f, nan, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::denorm_min()};
  for (size_t i = 0; i < n; i += 3) v[i] = special[(i / 3) % 5];
  return v;
}

std::vector<uint32_t> Bits(const std::vector<float>& v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * sizeof(float));
  return out;
}

TEST(Gather, BitwiseOntoEveryDeviceFromEveryLayout) {
  Tensor x = Tensor::from_vector(Awkward(7 * 5, 1), Shape{7, 5}, "CPU");
  const std::vector<uint32_t> want = Bits(x.to_vector<float>()), want_t = Bits(x.permute({1, 0}).to_vector<float>());
  for (const auto& devs : {kTwo, kThree})
    for (std::optional<int> axis : {std::optional<int>(0), std::optional<int>(1), std::optional<int>()})
      for (const std::string to : {"CPU", "CPU:1", "CPU:2"}) {
        SCOPED_TRACE(std::to_string(devs.size()) + " devices, axis " + (axis ? std::to_string(*axis) : "none") +
                     ", to " + to);
        Tensor xs = x.shard(devs, axis);
        Tensor g = xs.to(to);
        EXPECT_EQ(g.device(), to);
        EXPECT_FALSE(g.is_sharded());
        EXPECT_EQ(Bits(g.to_vector<float>()), want);
        EXPECT_EQ(Bits(xs.permute({1, 0}).to(to).to_vector<float>()), want_t);  // a lazy view of the shards
      }
}

TEST(Gather, BitwiseForIntsAndBools) {
  std::vector<int32_t> ints(9 * 4);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>(i * 2654435761u);
  Tensor i = Tensor::from_vector(ints, Shape{9, 4}, "CPU");
  EXPECT_EQ(i.shard(kThree, 0).to("CPU:2").to_vector<int32_t>(), ints);
  EXPECT_EQ(i.shard(kThree, 1).to("CPU").to_vector<int32_t>(), ints);
  Tensor b = Tensor::from_vector(RandomFloats(9 * 4, 2), Shape{9, 4}, "CPU") > 0.0f;
  std::vector<bool> want = b.to_vector<bool>();
  EXPECT_EQ(b.shard(kThree, 0).to("CPU:1").to_vector<bool>(), want);
  EXPECT_EQ(b.shard(kTwo, 1).to("CPU:2").to_vector<bool>(), want);
}

// One hop per shard, straight to the target, even when the target holds no shard (no relay through the
// first device); a replicated tensor copies one replica, none when the target has its own.
TEST(Gather, EveryShardCopiesStraightToTheTarget) {
  std::vector<std::string> devs = {"CPU", "CPU:1"};
  UOpRef a = compiler::NewBufferNode("CPU", dtypes::float32, 6)->reshape({3, 2});
  UOpRef b = compiler::NewBufferNode("CPU:1", dtypes::float32, 4)->reshape({2, 2});
  auto copies = [](const UOpRef& g) {
    std::vector<std::pair<std::string, const UOp*>> out;  // (to, what)
    for (const UOpRef& n : g->toposort())
      if (n->op() == Ops::kCopy) out.emplace_back(n->arg_as<std::string>(), n->src(0).get());
    std::sort(out.begin(), out.end());
    return out;
  };
  UOpRef g = compiler::GatherTo({a, b}, devs, 0, "CPU:2");
  EXPECT_EQ(g->shape(), (Shape{5, 2}));
  std::vector<std::pair<std::string, const UOp*>> both = {{"CPU:2", a.get()}, {"CPU:2", b.get()}};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(copies(g), both);
  EXPECT_EQ(copies(compiler::GatherTo({a, b}, devs, 0, "CPU:1")),
            (std::vector<std::pair<std::string, const UOp*>>{{"CPU:1", a.get()}}));
  UOpRef a6 = a->reshape({6}), b6 = compiler::NewBufferNode("CPU:1", dtypes::float32, 6);
  EXPECT_EQ(compiler::GatherTo({a6, b6}, devs, -1, "CPU:1"), b6);
  EXPECT_EQ(copies(compiler::GatherTo({a6, b6}, devs, -1, "CPU:2")).size(), 1u);
  EXPECT_TRUE(compiler::GathersDirectly(devs, "CPU:2"));  // one plugin with copy_d2d: no host staging

  // The multi pass lowers a tensor's to() the same way: every COPY reads a shard, none reads a copy.
  Tensor xs = Tensor::from_vector(RandomFloats(8 * 3, 3), Shape{8, 3}, "CPU").shard(kThree, 0);
  xs.realize();
  compiler::SpmdRoots spmd = compiler::SplitMulti({xs.to("CPU:1").exp().uop()}, {"CPU:1"});
  ASSERT_EQ(spmd.roots.size(), 1u);
  int hops = 0;
  for (const UOpRef& n : spmd.roots[0]->toposort())
    if (n->op() == Ops::kCopy) {
      ++hops;
      EXPECT_EQ(n->arg_as<std::string>(), "CPU:1");
      EXPECT_NE(compiler::BufferOfView(n->src(0)), nullptr) << "a copy of " << OpName(n->src(0)->op());
    }
  EXPECT_EQ(hops, 2);  // CPU and CPU:2's shards; CPU:1's is read in place
}

// A reduction over the sharded axis on three devices: the ring's chunks are reassembled exactly (MAX is
// order-free, so bitwise equal), and the gradient of a gathered loss comes back spread like the input.
TEST(Gather, ThreeDeviceRingAndGradientThroughAGather) {
  Tensor x = Tensor::from_vector(RandomFloats(7 * 10, 4), Shape{7, 10}, "CPU");
  EXPECT_EQ(Bits(x.shard(kThree, 0).max({0}).to("CPU:2").to_vector<float>()), Bits(x.max({0}).to_vector<float>()));
  ExpectAllNear(x.shard(kThree, 0).sum({0}).to_vector<float>(), x.sum({0}).to_vector<float>(), 1e-5f);
  Tensor xs = x.shard(kThree, 1);
  Tensor g = (xs.to("CPU:2").exp() * 2).sum().gradient({xs})[0];
  EXPECT_EQ(g.device(), "(CPU, CPU:1, CPU:2)");
  EXPECT_EQ(g.shard_axis(), 1);
  ExpectAllNear(g.to_vector<float>(), (x.exp() * 2).to_vector<float>(), 1e-5f);
}

}  // namespace
}  // namespace tg
