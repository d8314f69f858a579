// The scheduler's fusion rules, asserted as kernel counts, and the index math rangeify produces.
#include "compiler/codegen/codegen.h"
#include "compiler/buffer_node.h"
#include "compiler/schedule.h"
#include "compiler/schedule_cache.h"
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

}  // namespace
}  // namespace tg::compiler

namespace tg::compiler {
namespace {

// issue 4's fusion target: each layer of an MLP is one kernel (matmul + bias + relu fused; the
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
