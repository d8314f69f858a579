// Sharded tensors on the CPU plugin presented as two devices (TG_CPU_DEVICES=2, set by
// the BUILD target): every op class gives the same values sharded as unsharded, forward and backward.
#include <cstdlib>
#include <functional>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compiler/schedule/allreduce.h"
#include "compiler/schedule/buffer_node.h"
#include "frontend/nn/nn.h"
#include "ir/multi_arg.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/frontend/test_util.h"

namespace tg {
namespace {

using tg::testing::ExpectAllNear;
using tg::testing::RandomFloats;

const std::vector<std::string> kTwo = {"CPU:0", "CPU:1"};

Tensor Data(const Shape& shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::from_vector(RandomFloats(static_cast<size_t>(n), seed), shape, "CPU");
}

// f on plain tensors and on the same tensors sharded as |axes| says (nullopt: replicated) agree.
void ExpectSameSharded(const std::vector<Tensor>& inputs, const std::vector<std::optional<int>>& axes,
                       const std::function<Tensor(const std::vector<Tensor>&)>& f, float tol = 1e-5f) {
  std::vector<Tensor> sharded;
  for (size_t i = 0; i < inputs.size(); ++i) sharded.push_back(inputs[i].shard(kTwo, axes[i]));
  Tensor want = f(inputs), got = f(sharded);
  EXPECT_EQ(got.shape(), want.shape());
  EXPECT_EQ(got.device(), "(CPU, CPU:1)");
  ExpectAllNear(got.to_vector<float>(), want.to_vector<float>(), tol);
  ExpectAllNear(got.to("CPU").to_vector<float>(), want.to_vector<float>(), tol);  // gathered on one device
}

TEST(Shard, DevicesPropertiesAndRoundTrip) {
  Tensor x = Data({6, 4}, 1);
  Tensor s = x.shard(kTwo, 0);
  EXPECT_EQ(s.device(), "(CPU, CPU:1)");
  EXPECT_EQ(s.devices(), (std::vector<std::string>{"CPU", "CPU:1"}));
  EXPECT_TRUE(s.is_sharded());
  EXPECT_EQ(s.shard_axis(), 0);
  EXPECT_EQ(s.shape(), (Shape{6, 4}));
  EXPECT_FALSE(x.is_sharded());
  EXPECT_EQ(x.shard(kTwo).shard_axis(), std::nullopt);
  EXPECT_EQ(x.shard(kTwo, -1).shard_axis(), 1);
  EXPECT_EQ(s.to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(x.shard(kTwo, 1).to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(x.shard(kTwo).to_vector<float>(), x.to_vector<float>());
  s.realize();
  EXPECT_EQ(s.uop()->op(), Ops::kMulti);  // realized: one buffer per device
  EXPECT_EQ(s.uop()->src(0)->shape(), (Shape{3, 4}));
  EXPECT_EQ(s.to("CPU:1").device(), "CPU:1");
  EXPECT_EQ(s.to("CPU:1").to_vector<float>(), x.to_vector<float>());
}

TEST(Shard, UnevenShardsWork) {
  Tensor x = Data({5, 3}, 2);
  Tensor s = x.shard(kTwo, 0);
  s.realize();
  EXPECT_EQ(s.uop()->src(0)->shape(), (Shape{3, 3}));  // ceil(5 / 2), then the rest
  EXPECT_EQ(s.uop()->src(1)->shape(), (Shape{2, 3}));
  EXPECT_EQ(s.to_vector<float>(), x.to_vector<float>());
  ExpectSameSharded({x}, {0}, [](const auto& t) { return (t[0] * 2 + 1).sum({0}); });
  ExpectSameSharded({x, Data({3}, 3)}, {0, std::nullopt}, [](const auto& t) { return (t[0] + t[1]).relu(); });
  ExpectSameSharded({Data({1, 4}, 4)}, {0}, [](const auto& t) { return t[0].exp().sum(); });  // one empty shard
}

TEST(Shard, ElementwiseAndBroadcast) {
  Tensor a = Data({4, 6}, 5), b = Data({4, 6}, 6), row = Data({6}, 7), col = Data({4, 1}, 8);
  ExpectSameSharded({a, b}, {0, 0}, [](const auto& t) { return t[0] * t[1] + t[0].exp() - t[1].sigmoid(); });
  ExpectSameSharded({a, b}, {1, 1}, [](const auto& t) { return t[0].maximum(t[1]).where(t[0], 3.0f); },
                    1e-5f);
  ExpectSameSharded({a, b}, {0, 1}, [](const auto& t) { return t[0] / (t[1].abs() + 1); });  // resharded
  ExpectSameSharded({a, row}, {0, std::nullopt}, [](const auto& t) { return t[0] + t[1]; });
  ExpectSameSharded({a, col}, {1, std::nullopt}, [](const auto& t) { return t[0] * t[1]; });
  ExpectSameSharded({a, col}, {0, 0}, [](const auto& t) { return t[0] - t[1]; });
  ExpectSameSharded({a}, {0}, [](const auto& t) { return (t[0] < 0.5f).where(t[0] * 2, t[0].full_like(1.0f)); });
}

TEST(Shard, MovementOps) {
  Tensor x = Data({8, 3}, 9), y = Data({4, 3, 2}, 10);
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].reshape({2, 4, 3}) * 2; });   // splits the axis
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].reshape({4, 6}) + 1; });      // keeps it whole
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].permute({1, 0}).exp(); });    // moves it
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].transpose().matmul(t[0]); }, 1e-4f);
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].pad({{1, 2}, {0, 1}}); });     // pads the shard axis
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].pad({{0, 0}, {2, 1}}, 5.0f); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].shrink({{1, 7}, {0, 2}}); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].shrink({{0, 8}, {1, 3}}); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].flip({0}); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].flip({1}); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].reshape({8, 1, 3}).expand({8, 2, 3}); });
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0][{Slice{1, 6, 2}, 1}]; });
  ExpectSameSharded({x, Data({2, 3}, 11)}, {0, 0}, [](const auto& t) { return t[0].cat({t[1]}, 0); });
}

// A reshape runs per shard when the sharded axis's start survives it (the axes before it keep their
// product): the axis that starts there is the new sharded axis. Where uneven shards would cut a row of
// it, a few elements move first. One that merges the sharded axis into the axes before it is an error
// saying what to do instead, as tinygrad's reshape_multi refuses it.
TEST(Shard, ReshapeKeepsTheShardedAxisOrSaysWhatToDo) {
  Tensor x = Data({8, 3}, 9), y = Data({4, 3, 2}, 10), z = Data({4, 6}, 11), w = Data({6, 3}, 12);
  auto axis_after = [](const Tensor& t, std::optional<int> axis, const Shape& to) {
    Tensor r = t.shard(kTwo, axis).reshape(to).contiguous();
    r.realize();
    return r.shard_axis();
  };
  ExpectSameSharded({y}, {0}, [](const auto& t) { return t[0].reshape({4, 6}) * 2; });  // splits/merges after it
  EXPECT_EQ(axis_after(y, 0, {4, 6}), 0);
  ExpectSameSharded({y}, {0}, [](const auto& t) { return t[0].reshape({24}); });  // outermost of the merged axes
  EXPECT_EQ(axis_after(y, 0, {24}), 0);
  ExpectSameSharded({y}, {1}, [](const auto& t) { return t[0].reshape({4, 6}) + 1; });  // 2 and 1 rows of 2
  EXPECT_EQ(axis_after(y, 1, {4, 6}), 1);
  ExpectSameSharded({y}, {2}, [](const auto& t) { return t[0].reshape({12, 2}) - 1; });  // merges axes before it
  EXPECT_EQ(axis_after(y, 2, {12, 2}), 1);
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].reshape({2, 4, 3}); });  // splits it: outer part
  EXPECT_EQ(axis_after(x, 0, {2, 4, 3}), 0);
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].reshape({4, 2, 3}); });  // 2 new rows per shard
  EXPECT_EQ(axis_after(x, 0, {4, 2, 3}), 0);
  ExpectSameSharded({z}, {1}, [](const auto& t) { return t[0].reshape({4, 2, 3}); });  // splits it: 3 of 6 each
  EXPECT_EQ(axis_after(z, 1, {4, 2, 3}), 1);
  ExpectSameSharded({x}, {1}, [](const auto& t) { return t[0].reshape({2, 4, 3}); });  // splits another axis
  EXPECT_EQ(axis_after(x, 1, {2, 4, 3}), 2);
  ExpectSameSharded({y}, {std::nullopt}, [](const auto& t) { return t[0].reshape({6, 4}); });  // replicated: any
  // Shards of 3 and 3 rows would cut a row of the new axis: re-sharded to whole rows (2 and 1) first.
  ExpectSameSharded({w}, {0}, [](const auto& t) { return t[0].reshape({3, 2, 3}).exp(); });
  EXPECT_EQ(axis_after(w, 0, {3, 2, 3}), 0);
  ExpectSameSharded({z}, {1}, [](const auto& t) { return t[0].reshape({4, 3, 2}).sum({2}); });
  EXPECT_EQ(axis_after(z, 1, {4, 3, 2}), 1);
  // Merging the sharded axis into the axes before it mixes the devices' elements in every new row: an
  // error that names the shapes and the way out.
  for (auto [t, axis, to] : {std::tuple<Tensor, int, Shape>{y, 1, {12, 2}}, {y, 1, {24}}, {y, 2, {4, 6}},
                             {x, 1, {24}}}) {
    Tensor r = t.shard(kTwo, axis).reshape(to);
    try {
      r.realize();
      ADD_FAILURE() << "reshape to " << ShapeString(to) << " of axis " << axis << " ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("would mix elements of different devices"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(".to(device)"), std::string::npos) << e.what();
    }
    // The way out it names: gather, reshape, shard again.
    ExpectAllNear(t.shard(kTwo, axis).to("CPU").reshape(to).shard(kTwo, 0).to_vector<float>(),
                  t.reshape(to).to_vector<float>());
  }
}

TEST(Shard, Reductions) {
  Tensor x = Data({6, 5}, 12);
  for (std::optional<int> axis : {std::optional<int>(0), std::optional<int>(1), std::optional<int>()}) {
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].sum({0}); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].sum({1}, true); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].max({0}); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].min(); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].mean(); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return (t[0].abs() + 0.5f).prod({0}); }, 1e-4f);
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].softmax(0); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].log_softmax(1); });
    ExpectSameSharded({x}, {axis}, [](const auto& t) { return t[0].std({0}); }, 1e-4f);
  }
}

TEST(Shard, MatmulDataParallelAndWeightSharded) {
  Tensor x = Data({8, 6}, 13), w = Data({6, 4}, 14);
  ExpectSameSharded({x, w}, {0, std::nullopt}, [](const auto& t) { return t[0].matmul(t[1]); }, 1e-4f);  // batch
  ExpectSameSharded({x, w}, {std::nullopt, 1}, [](const auto& t) { return t[0].matmul(t[1]); }, 1e-4f);  // columns
  ExpectSameSharded({x, w}, {1, 0}, [](const auto& t) { return t[0].matmul(t[1]); }, 1e-4f);  // contraction: ALLREDUCE
  ExpectSameSharded({x, w}, {0, 1}, [](const auto& t) { return t[0].matmul(t[1]).relu().sum({1}); }, 1e-4f);
}

TEST(Shard, IrOpsCarryTheirLayout) {
  UOpRef a = compiler::NewBufferNode("CPU", dtypes::float32, 6), b = compiler::NewBufferNode("CPU:1", dtypes::float32, 4);
  UOpRef m = MakeMulti({a->reshape({3, 2}), b->reshape({2, 2})}, 0, {"CPU", "CPU:1"});
  EXPECT_EQ(m->shape(), (Shape{5, 2}));  // uneven shards add up along the axis
  EXPECT_EQ(MultiArg::Of(*m).devices, (std::vector<std::string>{"CPU", "CPU:1"}));
  EXPECT_THROW(MakeMulti({a->reshape({3, 2}), b->reshape({1, 4})}, 0, {"CPU", "CPU:1"}), Error);
  EXPECT_THROW(MakeMulti({a}, 0, {"CPU", "CPU:1"}), Error);
  UOpRef r = UOp::Make(Ops::kAllreduce, dtypes::float32, {a, a}, AllreduceArg{Ops::kMax, 1, DeviceSet({"CPU", "CPU:1"})});
  EXPECT_EQ(r->shape(), (Shape{6}));
  EXPECT_EQ(AllreduceArg::Of(*r).op, Ops::kMax);
  EXPECT_EQ(AllreduceArg::Of(*r).out, 1);
  EXPECT_EQ(DeviceSet::FromName("(CPU, CPU:1)").names(), (std::vector<std::string>{"CPU", "CPU:1"}));
  EXPECT_EQ(DeviceSet::FromName("CPU:1").names(), (std::vector<std::string>{"CPU:1"}));
  EXPECT_EQ(DeviceSet({"CPU", "CPU:1"}).Name(), "(CPU, CPU:1)");
}

// Two CPU devices copy directly (one plugin with copy_d2d): a ring of half-size hops. RING=0: each
// device copies the other's whole partial.
TEST(Shard, AllreduceLowersToARingOrToStagedCopies) {
  std::vector<std::string> devs = {"CPU", "CPU:1"};
  UOpRef a = compiler::NewBufferNode("CPU", dtypes::float32, 8), b = compiler::NewBufferNode("CPU:1", dtypes::float32, 8);
  auto copies = [&] {
    std::vector<UOpRef> outs;
    for (int64_t out = 0; out < 2; ++out)
      outs.push_back(UOp::Make(Ops::kAllreduce, dtypes::float32, {a, b}, AllreduceArg{Ops::kAdd, out, devs}));
    std::vector<int64_t> sizes;
    for (const UOpRef& n : UOp::Sink(compiler::LowerAllreduces(outs))->toposort()) {
      EXPECT_NE(n->op(), Ops::kAllreduce);
      if (n->op() == Ops::kCopy) sizes.push_back(n->numel());
    }
    return sizes;
  };
  EXPECT_EQ(copies(), (std::vector<int64_t>{4, 4, 4, 4}));  // 2 reduce-scatter + 2 all-gather hops
  setenv("RING", "0", 1);
  EXPECT_EQ(copies(), (std::vector<int64_t>{8, 8}));
  unsetenv("RING");
}

TEST(Shard, StagedAllreduceMatchesTheRing) {
  Tensor x = Data({8, 6}, 15), w = Data({6, 4}, 16);
  setenv("RING", "0", 1);  // naive: every device copies every other partial (the mixed-plugin path)
  ExpectSameSharded({x, w}, {1, 0}, [](const auto& t) { return t[0].matmul(t[1]); }, 1e-4f);
  ExpectSameSharded({x}, {0}, [](const auto& t) { return t[0].max({0}); });
  unsetenv("RING");
}

TEST(Shard, ConstantsAndCreationOnADeviceTuple) {
  Tensor z = Tensor::zeros({3, 2}, dtypes::float32, "(CPU:0, CPU:1)");
  EXPECT_EQ(z.device(), "(CPU, CPU:1)");
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(6, 0.0f));
  Tensor r = Tensor::from_vector<float>({1, 2, 3}, Shape{3}, "(CPU, CPU:1)");
  EXPECT_EQ(r.shard_axis(), std::nullopt);
  EXPECT_EQ((r * 2).to_vector<float>(), (std::vector<float>{2, 4, 6}));
  Tensor s = Data({4, 3}, 17).shard(kTwo, 0);
  ExpectAllNear((s + r).to_vector<float>(), (Data({4, 3}, 17) + Tensor::from_vector<float>({1, 2, 3})).to_vector<float>());
}

TEST(Shard, ClearErrors) {
  Tensor s = Data({4, 3}, 18).shard(kTwo, 0);
  Tensor plain = Data({4, 3}, 19);
  EXPECT_THROW(s + plain, Error);                              // different devices
  EXPECT_THROW(Data({4}, 1).shard({"CPU:0", "CPU:0"}, 0), Error);  // one device twice
  EXPECT_THROW(Data({4}, 1).shard(kTwo, 2), Error);                // no such axis
  EXPECT_THROW(s.shard({"CPU:1", "CPU:0"}, 1), Error);             // already sharded
  EXPECT_THROW(Data({4}, 1).shard({"CPU:0", "NOPE:7"}, 0), Error);
}

TEST(Shard, BackwardMatchesUnsharded) {
  Tensor x = Data({8, 6}, 20), w = Data({6, 4}, 21);
  auto loss = [](const Tensor& a, const Tensor& b) { return (a.matmul(b).relu() * 0.5f).softmax(1).square().sum(); };
  Tensor wp = Tensor::from_vector(w.to_vector<float>(), Shape{6, 4}, "CPU");
  wp.requires_grad(true);
  loss(x, wp).backward();
  for (auto [xa, wa] : {std::pair<std::optional<int>, std::optional<int>>{0, std::nullopt}, {std::nullopt, 1}, {1, 0}}) {
    Tensor xs = x.shard(kTwo, xa);
    Tensor ws = Tensor::from_vector(w.to_vector<float>(), Shape{6, 4}, "CPU").shard(kTwo, wa);
    ws.requires_grad(true);
    loss(xs, ws).backward();
    Tensor g = ws.grad();
    EXPECT_EQ(g.device(), "(CPU, CPU:1)");
    ExpectAllNear(g.to_vector<float>(), wp.grad().to_vector<float>(), 1e-4f);
    // and through gradient(): the input's gradient too
    std::vector<Tensor> gx = loss(xs, ws.detach()).gradient({xs});
    std::vector<Tensor> want = loss(x, wp.detach()).gradient({x});
    ExpectAllNear(gx[0].to_vector<float>(), want[0].to_vector<float>(), 1e-4f);
  }
}

// d f(x)/dx three ways, all equal to the single-device gradient: through x.shard() (the gradient flows back
// through MULTI and COPY onto x's device), of the sharded tensor itself, and of the sharded tensor when the
// loss is computed after gathering it onto one device with to() (the gradient comes back spread like it).
void ExpectSameGradSharded(const Tensor& x, std::optional<int> axis, const std::function<Tensor(const Tensor&)>& f,
                           float tol = 1e-4f) {
  std::vector<float> want = f(x).gradient({x})[0].to_vector<float>();
  ExpectAllNear(f(x.shard(kTwo, axis)).to_vector<float>(), f(x).to_vector<float>(), tol);  // the forward too
  Tensor through_shard = f(x.shard(kTwo, axis)).gradient({x})[0];
  EXPECT_EQ(through_shard.device(), "CPU");
  ExpectAllNear(through_shard.to_vector<float>(), want, tol);
  Tensor xs = x.shard(kTwo, axis);
  Tensor of_sharded = f(xs).gradient({xs})[0];
  EXPECT_EQ(of_sharded.device(), "(CPU, CPU:1)");
  ExpectAllNear(of_sharded.to_vector<float>(), want, tol);
  Tensor through_gather = f(xs.to("CPU:1")).gradient({xs})[0];
  EXPECT_EQ(through_gather.device(), "(CPU, CPU:1)");
  EXPECT_EQ(through_gather.shard_axis(), xs.shard_axis());  // spread like xs
  ExpectAllNear(through_gather.to_vector<float>(), want, tol);
}

// A reduce of constants is realized on its own; under a COPY it belongs to the copy's source device, not
// to the root's (backward through to() builds such graphs: softmax's gradient sums a constant seed).
TEST(Shard, ConstantReduceUnderACopyRunsOnTheSourceDevice) {
  Tensor y = Tensor::from_vector<float>({1, 2, 3}, Shape{3}, "CPU:1");
  Tensor c = Tensor::ones({6}, dtypes::float32, "CPU:1").sum();
  EXPECT_EQ((y * c).to("CPU").to_vector<float>(), (std::vector<float>{6, 12, 18}));
}

// Every op class, backward, over each layout of an [8, 6] input.
TEST(Shard, EveryOpClassBackwardMatchesUnsharded) {
  Tensor x = Data({8, 6}, 70);
  std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> losses = {
      {"elementwise", [](const Tensor& t) { return (t * t.sigmoid() - t.exp() * 0.1f + t.abs().sqrt()).sum(); }},
      {"broadcast", [](const Tensor& t) { return (t * t.sum({1}, true) - t.mean({0}, true)).square().sum(); }},
      {"reduce", [](const Tensor& t) { return t.max({0}).sum() + (t.abs() + 0.5f).prod({1}).sum() + t.std({0}).sum(); }},
      {"softmax", [](const Tensor& t) { return t.softmax(1).square().sum() + t.log_softmax(0).mean(); }},
      {"reshape",
       [](const Tensor& t) { return (t.reshape({8, 2, 3}) * t.reshape({8, 2, 3}).exp()).reshape({4, 2, 6}).sum(); }},
      {"reshape_resharded", [](const Tensor& t) { return t[{Slice{0, 6}}].reshape({3, 2, 6}).exp().sum(); }},
      {"permute", [](const Tensor& t) { return (t.permute({1, 0}).relu() * 2).sum({0}).square().sum(); }},
      {"pad_shrink_flip",
       [](const Tensor& t) { return t.pad({{1, 2}, {2, 0}}).flip({0}).shrink({{1, 9}, {1, 6}}).exp().sum(); }},
      {"expand", [](const Tensor& t) { return (t.reshape({8, 1, 6}).expand({8, 3, 6}).sigmoid()).sum(); }},
      {"slice_cat", [](const Tensor& t) { return t[{Slice{1, 7, 2}}].square().sum() + t.cat({t * 2}, 0).exp().sum(); }},
      {"matmul", [](const Tensor& t) { return t.matmul(t.transpose()).relu().sum(); }},
      {"to_and_back",
       [](const Tensor& t) { return (t.to("CPU:1").exp() * 3).to("CPU").sum() + t.square().sum().to("CPU"); }},
  };
  for (const auto& [name, f] : losses)
    for (std::optional<int> axis : {std::optional<int>(0), std::optional<int>(1), std::optional<int>()}) {
      std::string where = std::string(name) + " axis " + (axis ? std::to_string(*axis) : "none");
      SCOPED_TRACE(where);
      try {
        ExpectSameGradSharded(x, axis, f, 1e-3f);
      } catch (const Error& e) {
        ADD_FAILURE() << where << ": " << e.what();
      }
    }
}

// Gradients through to() and shard() reach a leaf on one device, on that device.
TEST(Shard, GradientFlowsThroughToAndShardOntoTheLeafsDevice) {
  auto loss = [](const Tensor& t) { return (t * t.sigmoid()).sum() + t.square().mean(); };
  Tensor want_x = Data({5, 3}, 80);
  want_x.requires_grad(true);
  loss(want_x).backward();
  std::vector<float> want = want_x.grad().to_vector<float>();
  std::vector<std::function<Tensor(const Tensor&)>> moves = {
      [](const Tensor& t) { return t.to("CPU:1"); },
      [](const Tensor& t) { return t.to("CPU:1").to("CPU"); },
      [](const Tensor& t) { return t.shard(kTwo, 0); },  // uneven: 3 and 2 rows
      [](const Tensor& t) { return t.shard(kTwo, 1); },
      [](const Tensor& t) { return t.shard(kTwo); },     // replicated: counted once, not once per device
      [](const Tensor& t) { return t.shard({"CPU:1", "CPU:0"}, 0).to("CPU:1"); },
  };
  for (size_t i = 0; i < moves.size(); ++i) {
    SCOPED_TRACE("move " + std::to_string(i));
    Tensor x = Data({5, 3}, 80);
    x.requires_grad(true);
    loss(moves[i](x)).backward();
    EXPECT_EQ(x.grad().device(), "CPU");
    ExpectAllNear(x.grad().to_vector<float>(), want, 1e-5f);
  }
  // A leaf of constants (no buffer says where it lives) gets its gradient on its own device too.
  Tensor z = Tensor::full({5, 3}, 0.5f, dtypes::float32, "CPU");
  z.requires_grad(true);
  (z.to("CPU:1").exp() * 2).sum().backward();
  EXPECT_EQ(z.grad().device(), "CPU");
  ExpectAllNear(z.grad().to_vector<float>(), std::vector<float>(15, 2 * std::exp(0.5f)));
  // A loss over the first device's rows only: the rows on the second device get zero gradient.
  Tensor x = Data({5, 3}, 80);
  x.requires_grad(true);
  (x.shard(kTwo, 0)[{Slice{0, 2}}] * 2).sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

// tinygrad's data-parallel idiom: the parameters live on one device and enter each step replicated
// with shard(); the batch is split on axis 0. The gradients land on the parameters' device and equal
// the single-device ones, step after step.
TEST(Shard, DataParallelGradientsOfOneDeviceParametersEqualUnsharded) {
  auto run = [](bool sharded) {
    Tensor x = Data({16, 8}, 30);
    Tensor y = Tensor::from_vector<int32_t>({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, Shape{16}, "CPU");
    Tensor w1 = Tensor::from_vector((Data({8, 12}, 31) * 0.3f).to_vector<float>(), Shape{8, 12}, "CPU");
    Tensor w2 = Tensor::from_vector((Data({12, 3}, 32) * 0.3f).to_vector<float>(), Shape{12, 3}, "CPU");
    w1.requires_grad(true);
    w2.requires_grad(true);
    nn::SGD opt({w1, w2}, 0.1);
    Training on;
    std::vector<std::vector<float>> seen;
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      Tensor xb = sharded ? x.shard(kTwo, 0) : x, yb = sharded ? y.shard(kTwo, 0) : y;
      Tensor a = sharded ? w1.shard(kTwo) : w1, b = sharded ? w2.shard(kTwo) : w2;
      xb.matmul(a).relu().matmul(b).sparse_categorical_crossentropy(yb).backward();
      EXPECT_EQ(w1.grad().device(), "CPU");
      seen.push_back(w1.grad().to_vector<float>());
      seen.push_back(w2.grad().to_vector<float>());
      opt.step();
    }
    seen.push_back(w1.to_vector<float>());
    seen.push_back(w2.to_vector<float>());
    return seen;
  };
  std::vector<std::vector<float>> want = run(false), got = run(true);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ExpectAllNear(got[i], want[i], 1e-4f);
}

// The same idiom as a jitted training step (shard() of the parameters inside the step): the replayed
// steps update the one-device parameters as the eager steps do.
TEST(Shard, DataParallelStepWithShardInsideReplaysUnderJit) {
  auto run = [](bool jit) {
    Tensor w = Tensor::from_vector((Data({8, 3}, 33) * 0.3f).to_vector<float>(), Shape{8, 3}, "CPU");
    w.requires_grad(true);
    nn::SGD opt({w}, 0.1);
    auto step = [&](const std::vector<Tensor>& in) {
      Training on;
      opt.zero_grad();
      Tensor loss = in[0].shard(kTwo, 0).matmul(w.shard(kTwo)).log_softmax(1).mean();
      loss.backward();
      opt.step();
      return std::vector<Tensor>{loss};
    };
    Jit jitted(step);
    for (int call = 0; call < 4; ++call) {
      Tensor x = Data({6, 8}, 90 + call);
      if (jit) jitted({x})[0].realize();
      else step({x})[0].realize();
    }
    return w.to_vector<float>();
  };
  ExpectAllNear(run(true), run(false), 1e-5f);
}

// tg::Jit replays the captured per-device kernels on each call's own shards.
TEST(Shard, JitReplaysWithShardedInputs) {
  Tensor w = Data({6, 4}, 40).shard(kTwo);
  Jit f([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0].matmul(w).sum({1})}; });
  for (int call = 0; call < 4; ++call) {
    Tensor x = Data({8, 6}, 50 + call);
    Tensor got = f({x.shard(kTwo, 0)})[0];
    ExpectAllNear(got.to_vector<float>(), x.matmul(Data({6, 4}, 40)).sum({1}).to_vector<float>(), 1e-4f);
  }
  EXPECT_THROW(f({Data({8, 6}, 60).shard(kTwo, 1)}), Error);  // another split than the capture's
}

// Two-layer MLP, data parallel (batch sharded, weights replicated) and tensor parallel (hidden units
// sharded): after several SGD steps the parameters equal the single-device run's.
std::vector<std::vector<float>> TrainMlp(std::optional<int> batch_axis, std::optional<int> w1_axis,
                                         std::optional<int> w2_axis, bool sharded) {
  Tensor x = Data({16, 8}, 30);
  Tensor y = Tensor::from_vector<int32_t>({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0}, Shape{16}, "CPU");
  Tensor w1 = Data({8, 12}, 31) * 0.3f, w2 = Data({12, 3}, 32) * 0.3f;
  w1 = Tensor::from_vector(w1.to_vector<float>(), Shape{8, 12}, "CPU");
  w2 = Tensor::from_vector(w2.to_vector<float>(), Shape{12, 3}, "CPU");
  if (sharded) {
    x = x.shard(kTwo, batch_axis);
    y = y.shard(kTwo, batch_axis);
    w1.shard_(kTwo, w1_axis);
    w2.shard_(kTwo, w2_axis);
  }
  w1.requires_grad(true);
  w2.requires_grad(true);
  nn::SGD opt({w1, w2}, 0.2);
  opt.set_lr(0.1);  // on every device's copy of lr
  Training on;
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    Tensor loss = x.matmul(w1).relu().matmul(w2).sparse_categorical_crossentropy(y);
    loss.backward();
    opt.step();
  }
  if (sharded) {
    EXPECT_EQ(w1.device(), "(CPU, CPU:1)");
    EXPECT_EQ(w1.shard_axis(), w1_axis);  // updated in place: the layout stays
  }
  return {w1.to_vector<float>(), w2.to_vector<float>()};
}

TEST(Shard, MlpTrainingStepsEqualUnsharded) {
  std::vector<std::vector<float>> want = TrainMlp(std::nullopt, std::nullopt, std::nullopt, false);
  for (auto [b, a1, a2] : {std::tuple<std::optional<int>, std::optional<int>, std::optional<int>>{0, std::nullopt, std::nullopt},
                          {std::nullopt, 1, 0}, {0, 1, 0}}) {
    std::vector<std::vector<float>> got = TrainMlp(b, a1, a2, true);
    ExpectAllNear(got[0], want[0], 1e-4f);
    ExpectAllNear(got[1], want[1], 1e-4f);
  }
}

}  // namespace
}  // namespace tg
