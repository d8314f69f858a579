// hip_async_copy_test.cc: the host's copies on the HIP plugin, over the stub runtime with two devices
// (STUB_HIP_DEVICES=2, set by the BUILD target), which logs the runtime calls that order work, move
// bytes or allocate. What the log must show: a copy between the two GPUs is ordered on their streams
// by events (hipEventRecord, hipStreamWaitEvent) and is hipMemcpyPeerAsync, with no host wait
// (hipStreamSynchronize, hipEventSynchronize, hipDeviceSynchronize); an upload is staged in
// page-locked memory (hipHostMalloc, once, then reused) and returns without a wait. The stub copies
// bytes at once and checks that device memory belongs to the device a copy names, so the data that
// comes back is checked too.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/plugin_loader.h"
#include "tests/plugins/dlopen_jail.h"
#include "tests/plugins/stub_driver_util.h"
#include "tests/plugins/stub_hip_hooks.h"

namespace tg::runtime {
namespace {

using ::testing::Contains;
using ::testing::Not;

using tg::testing::StubHipCallLog;
using tg::testing::StubHipCount;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";

class HipAsyncCopyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tg_dlopen_jail(kDrivers);
    absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(tg::testing::kHipPlugin, nullptr);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->device_count, 2u) << loaded->unavailable_reason;
    plugin_ = loaded->plugin.release();
    for (uint32_t i = 0; i < 2; ++i) {
      absl::StatusOr<std::unique_ptr<Device>> d = Device::Open(*plugin_, i);
      ASSERT_TRUE(d.ok()) << d.status();
      devices_[i] = d->release();
    }
  }
  void SetUp() override {
    ASSERT_NE(devices_[1], nullptr);
    StubHipCallLog();  // start each test with an empty log
  }

  static Plugin* plugin_;
  static Device* devices_[2];
};
Plugin* HipAsyncCopyTest::plugin_ = nullptr;
Device* HipAsyncCopyTest::devices_[2] = {nullptr, nullptr};

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.5f * float(i);
  return v;
}

TEST_F(HipAsyncCopyTest, DevicesOrderWithEventsAndOfferPageLockedMemory) {
  EXPECT_TRUE(devices_[0]->OrdersWithEvents());
  EXPECT_TRUE(devices_[0]->pinned_staging().Stages(4096));
}

TEST_F(HipAsyncCopyTest, CopyBetweenGpusIsOrderedByEventsNotByTheHostWaiting) {
  const size_t n = 1 << 16;
  std::vector<float> in = Iota(n), out(n, -1.f);
  std::shared_ptr<Buffer> on0 = Buffer::Create(*devices_[0], n * 4);
  std::shared_ptr<Buffer> on1 = Buffer::Create(*devices_[1], n * 4);
  ASSERT_TRUE(on0->CopyIn(in.data(), n * 4).ok());
  StubHipCallLog();
  ASSERT_TRUE(on1->CopyFrom(*on0, n * 4).ok());
  std::vector<std::string> calls = StubHipCallLog();
  EXPECT_THAT(calls, Contains("hipMemcpyPeerAsync"));
  EXPECT_THAT(calls, Contains("hipEventRecord"));
  EXPECT_THAT(calls, Contains("hipStreamWaitEvent"));
  EXPECT_THAT(calls, Not(Contains("hipMemcpyAsync DeviceToDevice")));
  EXPECT_THAT(calls, Not(Contains("hipStreamSynchronize")));
  EXPECT_THAT(calls, Not(Contains("hipEventSynchronize")));
  EXPECT_THAT(calls, Not(Contains("hipDeviceSynchronize")));
  ASSERT_TRUE(on1->CopyOut(out.data(), n * 4).ok());
  EXPECT_EQ(out, in);
}

// Peer access is the process's, once per ordered pair: a second copy the same way asks for nothing.
TEST_F(HipAsyncCopyTest, PeerAccessIsEnabledOncePerPair) {
  const size_t bytes = 4096;
  std::shared_ptr<Buffer> on0 = Buffer::Create(*devices_[0], bytes);
  std::shared_ptr<Buffer> on1 = Buffer::Create(*devices_[1], bytes);
  std::vector<char> in(bytes, 3), out(bytes, 0);
  ASSERT_TRUE(on1->CopyIn(in.data(), bytes).ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(on0->CopyFrom(*on1, bytes).ok());
    ASSERT_TRUE(on1->CopyFrom(*on0, bytes).ok());
  }
  EXPECT_EQ(StubHipCount("hipDeviceEnablePeerAccess"), 2);  // 0 -> 1 and 1 -> 0, in this whole process
  ASSERT_TRUE(on1->CopyOut(out.data(), bytes).ok());
  EXPECT_EQ(out, in);
}

TEST_F(HipAsyncCopyTest, UploadsAreStagedInPageLockedMemoryAndDoNotWait) {
  const size_t n = 1 << 14;
  std::vector<float> in = Iota(n), out(n, -1.f);
  std::shared_ptr<Buffer> b = Buffer::Create(*devices_[0], n * 4);
  PinnedStaging::Counters before = devices_[0]->pinned_staging().counters();
  ASSERT_TRUE(b->CopyIn(in.data(), n * 4).ok());
  std::vector<std::string> calls = StubHipCallLog();
  EXPECT_THAT(calls, Contains("hipMemcpyAsync HostToDevice"));
  EXPECT_THAT(calls, Not(Contains("hipStreamSynchronize")));
  EXPECT_THAT(calls, Not(Contains("hipDeviceSynchronize")));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(b->CopyIn(in.data(), n * 4).ok());
  PinnedStaging::Counters after = devices_[0]->pinned_staging().counters();
  EXPECT_LE(after.allocs - before.allocs, 1u);  // the block comes back once its copy completed
  EXPECT_GE(after.reuses - before.reuses, 3u);
  ASSERT_TRUE(b->CopyOut(out.data(), n * 4).ok());
  EXPECT_EQ(out, in);
}

TEST_F(HipAsyncCopyTest, UploadsLargerThanTheStagingLimitAreCopiedSynchronously) {
  const uint64_t bytes = PinnedStaging::kMaxStagedBytes + 4096;
  std::vector<char> in(bytes, 7);
  std::shared_ptr<Buffer> b = Buffer::Create(*devices_[1], bytes);
  ASSERT_TRUE(b->CopyIn(in.data(), bytes).ok());
  std::vector<std::string> calls = StubHipCallLog();
  EXPECT_THAT(calls, Not(Contains("hipHostMalloc")));
  EXPECT_THAT(calls, Contains("hipStreamSynchronize"));  // pageable memory: read before returning
}

// Devices of their own, closed at the end: the host frees its staging blocks after device_close,
// which HIP's host_free must survive, and every allocation of the test comes back.
TEST_F(HipAsyncCopyTest, ClosedDevicesGiveBackTheirMemoryAndStagingBlocks) {
  long mallocs = StubHipCount("hipMalloc"), frees = StubHipCount("hipFree");
  long host_mallocs = StubHipCount("hipHostMalloc"), host_frees = StubHipCount("hipHostFree");
  {
    std::unique_ptr<Device> d[2];
    for (uint32_t i = 0; i < 2; ++i) {
      absl::StatusOr<std::unique_ptr<Device>> opened = Device::Open(*plugin_, i);
      ASSERT_TRUE(opened.ok()) << opened.status();
      d[i] = std::move(*opened);
    }
    const size_t n = 1 << 12;
    std::vector<float> in = Iota(n), out(n, -1.f);
    std::shared_ptr<Buffer> on0 = Buffer::Create(*d[0], n * 4);
    std::shared_ptr<Buffer> on1 = Buffer::Create(*d[1], n * 4);
    ASSERT_TRUE(on0->CopyIn(in.data(), n * 4).ok());
    ASSERT_TRUE(on1->CopyFrom(*on0, n * 4).ok());
    ASSERT_TRUE(on1->CopyOut(out.data(), n * 4).ok());
    EXPECT_EQ(out, in);
  }
  EXPECT_GT(StubHipCount("hipMalloc"), mallocs);
  EXPECT_EQ(StubHipCount("hipMalloc") - mallocs, StubHipCount("hipFree") - frees);
  EXPECT_GT(StubHipCount("hipHostMalloc"), host_mallocs);
  EXPECT_EQ(StubHipCount("hipHostMalloc") - host_mallocs, StubHipCount("hipHostFree") - host_frees);
}

}  // namespace
}  // namespace tg::runtime
