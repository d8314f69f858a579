// The scheduler's fusion rules, asserted as kernel counts, and the index math rangeify produces.
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/schedule.h"
#include "compiler/schedule/schedule_cache.h"
#include "frontend/tg.h"
#include "runtime/device_registry.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

size_t KernelCount(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  size_t kernels = 0;
  for (const ScheduleItem& item : s.items) kernels += item.kind == ScheduleItem::Kind::kKernel;
  return kernels;
}

TEST(Schedule, ElementwiseChainIntoAReduceIsOneKernel) {
  Tensor a = Tensor::rand({16, 32}), b = Tensor::rand({16, 32}), c = Tensor::rand({16, 32});
  EXPECT_EQ(KernelCount((a * b + c).relu().sum({1})), 1u);
}

TEST(Schedule, ElementwiseOnAReduceFusesWhenNotBroadcast) {
  Tensor a = Tensor::rand({16, 32});
  EXPECT_EQ(KernelCount(a.sum({1}) * 2 + 1), 1u);
  EXPECT_EQ(KernelCount(a.sum({1}).sum()), 1u);  // a reduce of a reduce nests its loops
}

TEST(Schedule, ReduceBroadcastBackEndsAKernel) {
  Tensor x = Tensor::rand({8, 10});
  Tensor e = (x - x.max({1}, true)).exp();
  EXPECT_EQ(KernelCount(e / e.sum({1}, true)), 3u);  // row softmax
}

TEST(Schedule, MatmulIsOneKernel) {
  Tensor a = Tensor::rand({4, 8}), b = Tensor::rand({8, 3}), bias = Tensor::rand({3});
  EXPECT_EQ(KernelCount(a.matmul(b)), 1u);
  EXPECT_EQ(KernelCount((a.matmul(b) + bias).relu()), 1u);
}

TEST(Schedule, AlreadyRealizedTensorNeedsNoKernel) {
  Tensor a = Tensor::rand({4, 4});
  EXPECT_EQ(KernelCount(a), 0u);
  EXPECT_EQ(KernelCount(a.reshape({16})), 0u);
  EXPECT_EQ(KernelCount(a.contiguous()), 0u);
  EXPECT_EQ(KernelCount(a.transpose()), 1u);
}

// Reshapes that keep the element order must not leave divisions in the generated index math.
TEST(Rangeify, ContiguousReshapesFoldAway) {
  Tensor a = Tensor::rand({6, 4});
  Tensor t = a.reshape({2, 3, 4}).reshape({24}) + 1;
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  ASSERT_EQ(s.items.size(), 1u);
  std::string source = GenerateKernel(s.items[0].ast, runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info()).source.source;
  std::string body = source.substr(source.find("int32_t E_"));
  EXPECT_EQ(body.find('/'), std::string::npos) << body;
  EXPECT_EQ(body.find('%'), std::string::npos) << body;
}

TEST(Codegen, KernelNamesFollowTinygrad) {
  Tensor a = Tensor::rand({4, 8});
  Schedule s = CreateSchedule({a.sum({1}).uop()}, {a.device()});
  ASSERT_EQ(s.items.size(), 1u);
  EXPECT_EQ(KernelName(s.items[0].ast), "r_4_8");
  Schedule e = CreateSchedule({(a + 1).uop()}, {a.device()});
  EXPECT_EQ(KernelName(e.items[0].ast), "E_4_8");
}

}  // namespace
}  // namespace tg::compiler

namespace tg::compiler {
namespace {

// The same graph over other buffers reuses the cached schedule (same kernel ASTs) but binds the
// new inputs and fresh outputs; a graph of another size is not confused with it.
TEST(ScheduleCache, ReusesKernelsAndBindsNewBuffers) {
  Tensor a = Tensor::from_vector<float>({1, 2, 3}), b = Tensor::from_vector<float>({10, 20, 30});
  Schedule first = CachedSchedule({(a * 2 + 1).uop()}, {a.device()});
  Schedule second = CachedSchedule({(b * 2 + 1).uop()}, {b.device()});
  ASSERT_EQ(first.items.size(), 1u);
  ASSERT_EQ(second.items.size(), 1u);
  EXPECT_EQ(first.items[0].ast, second.items[0].ast);
  EXPECT_NE(first.items[0].buffers[0], second.items[0].buffers[0]);  // fresh outputs
  EXPECT_EQ(second.items[0].buffers[1], BufferOfView(b.uop()));     // the new input
  EXPECT_EQ((b * 2 + 1).to_vector<float>(), (std::vector<float>{21, 41, 61}));
  Tensor c = Tensor::from_vector<float>({1, 2, 3, 4});
  EXPECT_EQ((c * 2 + 1).to_vector<float>(), (std::vector<float>{3, 5, 7, 9}));
}

}  // namespace
}  // namespace tg::compiler

namespace tg::compiler {
namespace {

// assign writes into the tensor's own buffer; a kernel of the same realize that reads the old
// value runs first (write after read), one that reads the new value runs after.
TEST(Assign, InPlaceWithReadsOrderedAroundTheWrite) {
  Tensor w = Tensor::from_vector<float>({1, 2, 3});
  UOpRef buffer = BufferOfView(w.uop());
  Tensor old_sum = w.sum();
  w.assign(w * 10);
  Tensor new_sum = w.sum();
  Tensor::realize_all({new_sum, w, old_sum});
  EXPECT_EQ(BufferOfView(w.uop()), buffer);
  EXPECT_EQ(old_sum.item<float>(), 6.0f);
  EXPECT_EQ(new_sum.item<float>(), 60.0f);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{10, 20, 30}));
}

// A value that reads its own target at other elements goes through a temporary.
TEST(Assign, ReversedSelfReadGoesThroughATemporary) {
  Tensor w = Tensor::from_vector<float>({1, 2, 3, 4});
  w.assign(w.flip({0}) + 0);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{4, 3, 2, 1}));
}

// The kernel of an assign's single STORE, after scheduling |w|'s pending assign.
UOpRef AssignStore(const Tensor& w) {
  Schedule s = CreateSchedule({w.uop()}, {w.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast->src(0);
}

bool ReadsParam(const UOpRef& ast, int64_t param) {
  for (const UOpRef& n : ast->toposort())
    if (n->op() == Ops::kLoad && n->src(0)->src(0)->arg_as<int64_t>() == param) return true;
  return false;
}

// x.assign(c.where(v, x)) stores v behind the gate c and reads none of x: the elements it keeps are
// left alone. Both orders of the where, each with the values it must leave.
TEST(Assign, KeptElementsAreNeitherReadNorStored) {
  Tensor mask = Tensor::from_vector<bool>({true, false, false, true, false, true});
  for (bool kept_second : {true, false}) {
    Tensor w = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6});
    Tensor v = Tensor::from_vector<float>({10, 20, 30, 40, 50, 60}) + 0;
    w.assign(kept_second ? mask.where(v, w) : mask.where(w, v));
    UOpRef store = AssignStore(w);
    EXPECT_FALSE(store->src(0)->src(2)->is_const_value(true)) << store->str();
    EXPECT_FALSE(ReadsParam(store, 0)) << store->str();
    std::vector<float> want = kept_second ? std::vector<float>{10, 2, 3, 40, 5, 60}
                                          : std::vector<float>{1, 20, 30, 4, 50, 6};
    EXPECT_EQ(w.to_vector<float>(), want);
  }
}

// A where that keeps an element other than the one stored still reads it (through a temporary).
TEST(Assign, KeepingAnotherElementStillReadsIt) {
  Tensor mask = Tensor::from_vector<bool>({true, false, false, true});
  Tensor w = Tensor::from_vector<float>({1, 2, 3, 4});
  w.assign(mask.where(Tensor::full({4}, 9.0f), w.flip({0})));
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{9, 3, 2, 9}));
}

}  // namespace
}  // namespace tg::compiler

namespace tg::compiler {
namespace {

// The fusion target: each layer of an MLP is one kernel (matmul + bias + relu fused; the
// next layer's broadcast of the activations ends it).
TEST(Schedule, ThreeLayerMlpForwardIsThreeKernels) {
  Tensor x = Tensor::rand({8, 32});
  Tensor w1 = Tensor::rand({32, 64}), b1 = Tensor::rand({64});
  Tensor w2 = Tensor::rand({64, 64}), b2 = Tensor::rand({64});
  Tensor w3 = Tensor::rand({64, 10}), b3 = Tensor::rand({10});
  Tensor out = ((x.matmul(w1) + b1).relu().matmul(w2) + b2).relu().matmul(w3) + b3;
  EXPECT_EQ(KernelCount(out), 3u);
}

}  // namespace
}  // namespace tg::compiler

namespace tg::compiler {
namespace {

const runtime::DeviceInfo& CpuInfo() { return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info(); }

// A conv weight gradient as fashion_mnist's Conv3x3 computes it: a (o, 9c) reduce read back through
// the permute that made (ky, kx, c, o) rows of the (o, c, ky, kx) weight, then flattened.
Tensor ConvWeightGradientFlat() {
  Tensor dout = Tensor::rand({64, 16}), patches = Tensor::rand({64, 144});
  Tensor grad_rows = dout.transpose().matmul(patches).transpose();  // (ky*kx*c, o) = (144, 16)
  return grad_rows.reshape({3, 3, 16, 16}).permute({3, 2, 0, 1}).flatten().contiguous();
}

// A reduce stored through a permuting view is its own kernel in its own order (the heuristic tiles
// it as the plain matmul it is), and the permuted copy is a second, elementwise kernel: fused, the
// store's contiguous axis is the reduce's kx, a gather for every load (28x slower in training).
TEST(Schedule, ReduceStoredPermutedIsRealizedInItsOwnOrder) {
  Tensor g = ConvWeightGradientFlat();
  Schedule s = CreateSchedule({g.uop()}, {g.device()});
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(KernelName(s.items[0].ast), "r_16_144_64");
  EXPECT_EQ(KernelName(s.items[1].ast), "E_2304");
  // Its own order gives the reduce kernel the matmul tile: a vector over the 144 contiguous columns.
  Kernel k(s.items[0].ast);
  ASSERT_EQ(k.AxesString(), "[GLOBAL:16, LOOP:144, REDUCE:64]");
  UOpRef store_index = k.ast()->src(0)->src(0)->src(1);
  EXPECT_EQ(Kernel::Stride(store_index, k.axes()[1].range), 1);
  ApplyHeuristic(k, Target::For(CpuInfo()));
  ASSERT_FALSE(k.applied().empty());
  EXPECT_EQ(k.applied()[0].op, OptOp::kUpcast);
  EXPECT_EQ(k.applied()[0].axis, 1) << k.AxesString();
}

TEST(Schedule, ReduceStoredPermutedStillComputesTheSameValues) {
  std::vector<float> dout(8 * 4), x(8 * 6);
  for (size_t i = 0; i < dout.size(); ++i) dout[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5) - 2;
  Tensor td = Tensor::from_vector(dout, Shape{8, 4}), tx = Tensor::from_vector(x, Shape{8, 6});
  // A (4, 6) reduce viewed as (6, 4), split to (3, 2, 4) and permuted to (4, 2, 3): [o][a][b] reads
  // reduce element [o][b * 2 + a], out of its order.
  Tensor t = td.transpose().matmul(tx).permute({1, 0}).reshape({3, 2, 4}).permute({2, 1, 0}).contiguous();
  EXPECT_EQ(KernelCount(t), 2u);
  std::vector<float> got = t.to_vector<float>();
  ASSERT_EQ(got.size(), 24u);
  for (int o = 0; o < 4; ++o)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 3; ++b) {
        float want = 0;
        for (int n = 0; n < 8; ++n) want += dout[n * 4 + o] * x[n * 6 + b * 2 + a];
        EXPECT_EQ(got[(o * 2 + a) * 3 + b], want) << o << " " << a << " " << b;
      }
}

// Views that keep the reduce's innermost axis innermost stay fused: a reshape, and attention's
// (B, H, T, D) -> (B, T, H, D) transpose.
TEST(Schedule, ReduceStoredInItsOwnInnerOrderStaysFused) {
  Tensor a = Tensor::rand({4, 8}), b = Tensor::rand({8, 6});
  EXPECT_EQ(KernelCount(a.matmul(b).reshape({24})), 1u);
  Tensor att = Tensor::rand({2, 3, 5, 5}), v = Tensor::rand({2, 3, 5, 4});
  EXPECT_EQ(KernelCount(att.matmul(v).transpose(1, 2).reshape({2, 5, 12}).contiguous()), 1u);
}

}  // namespace
}  // namespace tg::compiler
