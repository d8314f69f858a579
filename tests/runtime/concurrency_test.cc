// concurrency_test.cc: the runtime's shared state used from several threads at once, as a training
// loop and a data loader or two models in one process do: device lookup, the program cache, the
// allocator's LRU, launches on the plugin's thread pool, and the sqlite disk cache. Meaningful under
// --config=tsan, where a data race fails the test; the results are checked in every build.
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "runtime/disk_cache.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

constexpr int kThreads = 4;

template <typename Fn>
void OnThreads(Fn fn) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(fn, t);
  for (std::thread& th : threads) th.join();
}

// out[i] = a[i] + b[i] * K: a few distinct kernels, so threads both share and miss the cache.
KernelSource Kernel(int k) {
  std::string body = tg::testing::kVectorAdd;
  body.replace(body.find("a[i] + b[i]"), 11, "a[i] + b[i] * " + std::to_string(k) + ".0f");
  return {"c", std::string(tg::testing::kCPrelude) + body, "vadd"};
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* tmp = std::getenv("TEST_TMPDIR")) setenv("TG_CACHE_DIR", tmp, 1);
    registry_ = std::make_unique<DeviceRegistry>(std::vector<std::string>{"./plugins/cpu/libtg_cpu.so"});
  }
  std::unique_ptr<DeviceRegistry> registry_;
};

TEST_F(ConcurrencyTest, DeviceLookupProgramCacheAllocatorAndLaunchesFromSeveralThreads) {
  std::atomic<int> failures{0};
  OnThreads([&](int t) {
    absl::StatusOr<Device*> dev = registry_->GetDevice(t % 2 == 0 ? "CPU" : "cpu:0");
    if (!dev.ok()) return void(++failures);
    Device& cpu = **dev;
    const int n = 777;
    for (int iter = 0; iter < 6; ++iter) {
      int k = (t + iter) % 3 + 1;
      absl::StatusOr<std::shared_ptr<Program>> program = cpu.GetProgram(Kernel(k));
      if (!program.ok()) return void(++failures);
      std::vector<float> a(n), b(n), out(n, -1.f);
      for (int i = 0; i < n; ++i) a[i] = float(i + t), b[i] = float(iter - i);
      // Same sizes on every thread: buffers go back and forth through the allocator's cache.
      auto ba = Buffer::Create(cpu, n * 4), bb = Buffer::Create(cpu, n * 4), bo = Buffer::Create(cpu, n * 4);
      LaunchDims dims;
      dims.num_groups = {(n + 63) / 64, 1, 1};
      dims.group_size = {64, 1, 1};
      std::vector<KernelArg> args = {KernelArg::Buf(bo.get()), KernelArg::Buf(ba.get()),
                                     KernelArg::Buf(bb.get()), KernelArg::I64(n)};
      if (!ba->CopyIn(a.data(), n * 4).ok() || !bb->CopyIn(b.data(), n * 4).ok() ||
          !cpu.Launch(**program, dims, args).ok() || !bo->CopyOut(out.data(), n * 4).ok()) {
        return void(++failures);
      }
      for (int i = 0; i < n; ++i) {
        if (out[i] != a[i] + b[i] * float(k)) return void(++failures);
      }
    }
  });
  EXPECT_EQ(failures.load(), 0);
  absl::StatusOr<Device*> cpu = registry_->GetDevice("CPU");
  ASSERT_TRUE(cpu.ok());
  EXPECT_GE((*cpu)->program_cache().hits(), 1u);
  EXPECT_EQ((*cpu)->allocator().stats().live_bytes, 0u);
}

TEST_F(ConcurrencyTest, DiskCacheFromSeveralThreads) {
  absl::StatusOr<std::unique_ptr<DiskCache>> cache =
      DiskCache::Open(std::string(std::getenv("TEST_TMPDIR")) + "/threads.db");
  ASSERT_TRUE(cache.ok()) << cache.status();
  std::atomic<int> failures{0};
  OnThreads([&](int t) {
    for (int i = 0; i < 20; ++i) {
      std::string key = "k" + std::to_string(i % 5);
      (*cache)->PutProgram(key, {"elf-so", "bytes of " + key});
      std::optional<CachedBinary> got = (*cache)->GetProgram(key);
      if (!got || got->bytes != "bytes of " + key) ++failures;
      (*cache)->PutBeam(key, "dev", 2, "opts" + std::to_string(t));
      if (!(*cache)->GetBeam(key, "dev", 2)) ++failures;
    }
  });
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tg::runtime
