// Memory planning: intermediates of one schedule share memory by lifetime, and an MLP training
// step's peak device memory stays within 1.5x of what its live tensors hold.
#include <algorithm>
#include <cstdio>
#include <set>

#include "compiler/schedule/buffer_node.h"
#include "compiler/schedule/schedule_cache.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

runtime::BufferAllocator& CpuAllocator() {
  return runtime::DeviceRegistry::Global().GetDevice("CPU").value()->allocator();
}

TEST(MemoryPlanner, ChainedIntermediatesReuseMemory) {
  Tensor x = Tensor::rand({1024});
  Tensor y = x;
  for (int i = 0; i < 6; ++i) y = (y * 2 + 1).contiguous();  // six materialized intermediates
  Schedule s = CachedSchedule({y.uop()}, {y.device()});
  ASSERT_EQ(s.items.size(), 6u);
  std::set<const void*> storages;
  for (const ScheduleItem& item : s.items) storages.insert(item.buffers[0]->arg_as<BufferArg>().storage.get());
  // Each kernel reads the previous one's output: two blocks alternate, plus the root's own.
  EXPECT_LE(storages.size(), 3u);
  // And the values are still right.
  std::vector<float> in = x.to_vector<float>(), out = y.to_vector<float>();
  for (size_t i = 0; i < in.size(); ++i) {
    float want = in[i];
    for (int k = 0; k < 6; ++k) want = want * 2 + 1;
    ASSERT_FLOAT_EQ(out[i], want);
  }
}

// The chain above as a function of its input: six kernels, each on the previous one's output.
Tensor Chain(const Tensor& x) {
  Tensor y = x;
  for (int i = 0; i < 6; ++i) y = (y * 2 + 1).contiguous();
  return y;
}

// Where each item writes, as the order its storage was first seen: the plan's sharing pattern.
std::vector<size_t> StoragePattern(const Schedule& s) {
  std::vector<const void*> seen;
  std::vector<size_t> pattern;
  for (const ScheduleItem& item : s.items) {
    const void* storage = item.buffers[0]->arg_as<BufferArg>().storage.get();
    auto it = std::find(seen.begin(), seen.end(), storage);
    pattern.push_back(static_cast<size_t>(it - seen.begin()));
    if (it == seen.end()) seen.push_back(storage);
  }
  return pattern;
}

// A cache hit reuses the plan made with the cached schedule: the same sharing, on fresh memory, with
// the call's own input bound, and the values of the call's input.
TEST(MemoryPlanner, ACacheHitAppliesThePlanToFreshBuffersAndItsOwnInput) {
  Tensor x1 = Tensor::rand({1024}).realize(), x2 = Tensor::rand({1024}).realize();
  Tensor y1 = Chain(x1), y2 = Chain(x2);
  Schedule s1 = CachedSchedule({y1.uop()}, {y1.device()});
  Schedule s2 = CachedSchedule({y2.uop()}, {y2.device()});  // the same graph shape: a hit
  ASSERT_EQ(s1.items.size(), 6u);
  ASSERT_EQ(s2.items.size(), 6u);
  std::vector<size_t> pattern = StoragePattern(s2);
  EXPECT_EQ(StoragePattern(s1), pattern);
  EXPECT_LE(*std::max_element(pattern.begin(), pattern.end()), 2u);  // two blocks alternate, plus the root's
  // s1 is alive, so none of its memory may be handed to s2.
  std::set<const void*> first;
  for (const ScheduleItem& item : s1.items)
    for (const UOpRef& b : item.buffers) first.insert(b->arg_as<BufferArg>().storage.get());
  for (const ScheduleItem& item : s2.items)
    EXPECT_FALSE(first.count(item.buffers[0]->arg_as<BufferArg>().storage.get())) << "an output of s2 reuses s1's memory";
  EXPECT_EQ(s2.items[0].buffers[1], BufferOfView(x2.uop()));
  EXPECT_EQ(s1.items[0].buffers[1], BufferOfView(x1.uop()));
  ASSERT_EQ(s2.realized.size(), 1u);
  EXPECT_EQ(BufferOfView(s2.realized[0]), s2.items.back().buffers[0]);
  // Realized through the cache, in either order, each gives its own input's values.
  for (auto [x, y] : {std::pair{x2, y2}, std::pair{x1, y1}}) {
    std::vector<float> in = x.to_vector<float>(), out = y.to_vector<float>();
    for (size_t i = 0; i < in.size(); ++i) {
      float want = in[i];
      for (int k = 0; k < 6; ++k) want = want * 2 + 1;
      ASSERT_FLOAT_EQ(out[i], want);
    }
  }
}

// A realized root that is a view of an output, not the output itself, is bound through the view.
TEST(MemoryPlanner, ACacheHitBindsARealizedViewOfAnOutput) {
  for (int round = 0; round < 3; ++round) {
    Tensor x = Tensor::rand({64}).realize();
    Tensor y = (x * 3).contiguous().reshape({8, 8});
    std::vector<float> in = x.to_vector<float>(), out = y.to_vector<float>();
    ASSERT_EQ(out.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) ASSERT_FLOAT_EQ(out[i], in[i] * 3) << "round " << round;
  }
}

TEST(MemoryPlanner, MlpTrainingStepPeakIsWithinOneAndAHalfTimesLiveTensors) {
  Tensor::manual_seed(1);
  nn::Linear l1(784, 512), l2(512, 512), l3(512, 10);
  std::vector<Tensor> params;
  for (auto* l : {&l1, &l2, &l3})
    for (const Tensor& p : nn::parameters(*l)) params.push_back(p);
  nn::Adam opt(params, 1e-3);
  Tensor x = Tensor::randn({128, 784}), y = Tensor::randint({128}, 0, 10);
  Tensor::realize_all({x, y});
  auto step = [&] {
    Training on;
    opt.zero_grad();
    Tensor loss = l3(l2(l1(x).relu()).relu()).sparse_categorical_crossentropy(y);
    loss.backward();
    opt.step();
    return loss.item<float>();
  };
  step();  // grads and optimizer state exist from here on
  uint64_t live_before = CpuAllocator().stats().live_bytes;
  CpuAllocator().ResetPeak();
  step();
  uint64_t peak = CpuAllocator().stats().peak_live_bytes;
  uint64_t live_after = CpuAllocator().stats().live_bytes;
  std::printf("MLP step: live before %.2f MB, after %.2f MB, peak %.2f MB (%.2fx)\n", live_before / 1e6,
              live_after / 1e6, peak / 1e6, static_cast<double>(peak) / live_after);
  EXPECT_LE(static_cast<double>(peak), 1.5 * static_cast<double>(live_after));
}

}  // namespace
}  // namespace tg::compiler
