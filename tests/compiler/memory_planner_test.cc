// Memory planning: intermediates of one schedule share memory by lifetime, and an MLP training
// step's peak device memory stays within 1.5x of what its live tensors hold.
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
