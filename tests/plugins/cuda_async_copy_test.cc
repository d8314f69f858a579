// cuda_async_copy_test.cc: the host's copies on the CUDA plugin, over the stub driver with two devices
// (STUB_CUDA_DEVICES=2, set by the BUILD target), which logs the driver calls that order work or move
// bytes. What the log must show: a copy between the two GPUs is ordered on their streams by events
// (cuEventRecord, cuStreamWaitEvent) and cuMemcpyPeerAsync, with no host wait (cuStreamSynchronize);
// an upload is staged in page-locked memory (cuMemHostAlloc, once, then reused) and returns without a
// wait. The stub copies bytes at once, so the data that comes back is checked too.
#include <dlfcn.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/plugin_loader.h"
#include "tests/plugins/dlopen_jail.h"
#include "tests/plugins/stub_driver_util.h"

namespace tg::runtime {
namespace {

using ::testing::Contains;
using ::testing::Not;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";

class CudaAsyncCopyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tg_dlopen_jail(kDrivers);
    absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(tg::testing::kCudaPlugin, nullptr);
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
    CallLog();  // start each test with an empty log
  }

  // The driver calls logged since the last read, one per element.
  static std::vector<std::string> CallLog() {
    void* driver = dlopen("tests/plugins/stub_drivers/libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    auto read = reinterpret_cast<void (*)(char*, size_t)>(dlsym(driver, "stub_cuda_call_log"));
    EXPECT_NE(read, nullptr) << "the stub driver was not the one loaded";
    if (read == nullptr) return {};
    std::vector<char> text(1 << 16);
    read(text.data(), text.size());
    return absl::StrSplit(std::string(text.data()), '\n', absl::SkipEmpty());
  }

  static Plugin* plugin_;
  static Device* devices_[2];
};
Plugin* CudaAsyncCopyTest::plugin_ = nullptr;
Device* CudaAsyncCopyTest::devices_[2] = {nullptr, nullptr};

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.5f * float(i);
  return v;
}

TEST_F(CudaAsyncCopyTest, DevicesOrderWithEventsAndOfferPageLockedMemory) {
  EXPECT_TRUE(devices_[0]->OrdersWithEvents());
  EXPECT_TRUE(devices_[0]->pinned_staging().Stages(4096));
}

TEST_F(CudaAsyncCopyTest, CopyBetweenGpusIsOrderedByEventsNotByTheHostWaiting) {
  const size_t n = 1 << 16;
  std::vector<float> in = Iota(n), out(n, -1.f);
  std::shared_ptr<Buffer> on0 = Buffer::Create(*devices_[0], n * 4);
  std::shared_ptr<Buffer> on1 = Buffer::Create(*devices_[1], n * 4);
  ASSERT_TRUE(on0->CopyIn(in.data(), n * 4).ok());
  CallLog();
  ASSERT_TRUE(on1->CopyFrom(*on0, n * 4).ok());
  std::vector<std::string> calls = CallLog();
  EXPECT_THAT(calls, Contains("cuMemcpyPeerAsync"));
  EXPECT_THAT(calls, Contains("cuStreamWaitEvent"));
  EXPECT_THAT(calls, Not(Contains("cuStreamSynchronize")));
  EXPECT_THAT(calls, Not(Contains("cuEventSynchronize")));
  ASSERT_TRUE(on1->CopyOut(out.data(), n * 4).ok());
  EXPECT_EQ(out, in);
}

TEST_F(CudaAsyncCopyTest, UploadsAreStagedInPageLockedMemoryAndDoNotWait) {
  const size_t n = 1 << 14;
  std::vector<float> in = Iota(n), out(n, -1.f);
  std::shared_ptr<Buffer> b = Buffer::Create(*devices_[0], n * 4);
  PinnedStaging::Counters before = devices_[0]->pinned_staging().counters();
  ASSERT_TRUE(b->CopyIn(in.data(), n * 4).ok());
  std::vector<std::string> calls = CallLog();
  EXPECT_THAT(calls, Contains("cuMemcpyHtoDAsync"));
  EXPECT_THAT(calls, Not(Contains("cuStreamSynchronize")));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(b->CopyIn(in.data(), n * 4).ok());
  PinnedStaging::Counters after = devices_[0]->pinned_staging().counters();
  EXPECT_LE(after.allocs - before.allocs, 1u);  // the block comes back once its copy completed
  EXPECT_GE(after.reuses - before.reuses, 3u);
  ASSERT_TRUE(b->CopyOut(out.data(), n * 4).ok());
  EXPECT_EQ(out, in);
}

TEST_F(CudaAsyncCopyTest, UploadsLargerThanTheStagingLimitAreCopiedSynchronously) {
  const uint64_t bytes = PinnedStaging::kMaxStagedBytes + 4096;
  std::vector<char> in(bytes, 7);
  std::shared_ptr<Buffer> b = Buffer::Create(*devices_[1], bytes);
  ASSERT_TRUE(b->CopyIn(in.data(), bytes).ok());
  std::vector<std::string> calls = CallLog();
  EXPECT_THAT(calls, Not(Contains("cuMemHostAlloc")));
  EXPECT_THAT(calls, Contains("cuStreamSynchronize"));  // pageable memory: read before returning
}

// A device's page-locked blocks go back to the driver before the device is closed: host_free takes
// the device, which is gone after device_close (a use after free that ASan catches).
TEST_F(CudaAsyncCopyTest, ClosingADeviceFreesItsPageLockedBlocksFirst) {
  absl::StatusOr<std::unique_ptr<Device>> own = Device::Open(*plugin_, 0);
  ASSERT_TRUE(own.ok()) << own.status();
  std::vector<float> in = Iota(1024);
  {
    std::shared_ptr<Buffer> b = Buffer::Create(**own, in.size() * 4);
    ASSERT_TRUE(b->CopyIn(in.data(), in.size() * 4).ok());
  }
  CallLog();
  own->reset();
  EXPECT_THAT(CallLog(), Contains("cuMemFreeHost"));
}

}  // namespace
}  // namespace tg::runtime
