// buffer_allocator_test.cc: freed allocations are reused by size, least recently freed go first.
#include "runtime/buffer_allocator.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"

namespace tg::runtime {
namespace {

class BufferAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = std::make_unique<DeviceRegistry>(std::vector<std::string>{"./plugins/cpu/libtg_cpu.so"});
    absl::StatusOr<Device*> d = registry_->GetDevice("CPU");
    ASSERT_TRUE(d.ok()) << d.status();
    cpu_ = *d;
  }
  std::unique_ptr<DeviceRegistry> registry_;
  Device* cpu_ = nullptr;
};

TEST_F(BufferAllocatorTest, SameSizeIsReusedAfterTheLastReferenceGoes) {
  tg_buffer* first = nullptr;
  {
    std::shared_ptr<Buffer> a = Buffer::Create(*cpu_, 4096);
    ASSERT_TRUE(a->EnsureAllocated().ok());
    first = a->handle();
    std::shared_ptr<Buffer> alias = a;  // refcounted: this keeps the memory alive
    a.reset();
    EXPECT_EQ(cpu_->allocator().stats().cached_count, 0u);
  }
  EXPECT_EQ(cpu_->allocator().stats().cached_count, 1u);
  std::shared_ptr<Buffer> other_size = Buffer::Create(*cpu_, 2048);
  ASSERT_TRUE(other_size->EnsureAllocated().ok());
  EXPECT_NE(other_size->handle(), first);
  std::shared_ptr<Buffer> b = Buffer::Create(*cpu_, 4096);
  ASSERT_TRUE(b->EnsureAllocated().ok());
  EXPECT_EQ(b->handle(), first);
  EXPECT_EQ(cpu_->allocator().stats().hits, 1u);
}

TEST_F(BufferAllocatorTest, CacheIsBoundedAndEvictsTheLeastRecentlyFreed) {
  BufferAllocator& alloc = cpu_->allocator();
  alloc.SetLimits(/*max_cached_bytes=*/3 * 1024, /*max_cached_count=*/100);
  std::vector<tg_buffer*> handles;
  {
    std::vector<std::shared_ptr<Buffer>> bufs;
    for (int i = 0; i < 4; ++i) {
      bufs.push_back(Buffer::Create(*cpu_, 1024));
      ASSERT_TRUE(bufs.back()->EnsureAllocated().ok());
      handles.push_back(bufs.back()->handle());
    }
    for (auto& b : bufs) b.reset();  // freed in order 0, 1, 2, 3
  }
  BufferAllocator::Stats s = alloc.stats();
  EXPECT_EQ(s.cached_count, 3u);
  EXPECT_EQ(s.cached_bytes, 3u * 1024);
  EXPECT_EQ(s.evictions, 1u);  // handle 0 went back to the plugin
  std::shared_ptr<Buffer> again = Buffer::Create(*cpu_, 1024);
  ASSERT_TRUE(again->EnsureAllocated().ok());
  EXPECT_EQ(again->handle(), handles[3]);  // most recently freed first

  alloc.SetLimits(0, 0);
  EXPECT_EQ(alloc.stats().cached_count, 0u);
}

TEST_F(BufferAllocatorTest, CopyRoundTripThroughAReusedBuffer) {
  std::vector<int32_t> in(1000), out(1000);
  for (int i = 0; i < 1000; ++i) in[i] = i * 3 - 7;
  { auto warm = Buffer::Create(*cpu_, 4000); ASSERT_TRUE(warm->CopyIn(in.data(), 4000).ok()); }
  auto b = Buffer::Create(*cpu_, 4000);
  ASSERT_TRUE(b->CopyIn(in.data(), 4000).ok());
  ASSERT_TRUE(b->CopyOut(out.data(), 4000).ok());
  EXPECT_EQ(in, out);
}

// Faults: TINYMEM (tests/runtime/stub_plugin.c) has 1 MiB and says RESOURCE_EXHAUSTED past it.
class OutOfMemoryTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kDeviceBytes = 1 << 20;
  void SetUp() override {
    registry_ = std::make_unique<DeviceRegistry>(
        std::vector<std::string>{"./tests/runtime/libstub_limited_memory.so"});
    absl::StatusOr<Device*> d = registry_->GetDevice("TINYMEM");
    ASSERT_TRUE(d.ok()) << d.status();
    dev_ = *d;
    dev_->allocator().SetLimits(kDeviceBytes, 100);  // keep everything freed, so the cache fills the device
  }
  std::shared_ptr<Buffer> Allocated(uint64_t nbytes) {
    std::shared_ptr<Buffer> b = Buffer::Create(*dev_, nbytes);
    absl::Status s = b->EnsureAllocated();
    EXPECT_TRUE(s.ok()) << s;
    return b;
  }
  std::unique_ptr<DeviceRegistry> registry_;
  Device* dev_ = nullptr;
};

TEST_F(OutOfMemoryTest, AFailedAllocationEmptiesTheCacheAndRetriesOnce) {
  Allocated(300 << 10);  // freed at once: 600 KiB idle in the cache, of another size
  Allocated(300 << 10).reset();
  { auto a = Allocated(300 << 10), b = Allocated(300 << 10); }
  ASSERT_EQ(dev_->allocator().stats().cached_bytes, 600u << 10);
  // 700 KiB fits the device only once the idle 600 KiB go back to it.
  std::shared_ptr<Buffer> big = Buffer::Create(*dev_, 700 << 10);
  absl::Status s = big->EnsureAllocated();
  ASSERT_TRUE(s.ok()) << s;
  BufferAllocator::Stats st = dev_->allocator().stats();
  EXPECT_EQ(st.cached_bytes, 0u);
  EXPECT_EQ(st.live_bytes, 700u << 10);
}

TEST_F(OutOfMemoryTest, TooLargeEvenAfterTheRetrySaysWhatWasAskedHeldAndFreed) {
  std::shared_ptr<Buffer> held = Allocated(200 << 10);
  { auto idle = Allocated(100 << 10); }  // 100 KiB in the cache
  std::shared_ptr<Buffer> huge = Buffer::Create(*dev_, 2 << 20);
  absl::Status s = huge->EnsureAllocated();
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              ::testing::AllOf(::testing::HasSubstr("2097152 bytes requested"),
                               ::testing::HasSubstr("204800 bytes held by live buffers"),
                               ::testing::HasSubstr("1 idle buffers, 102400 bytes freed"),
                               ::testing::HasSubstr("retried once"),
                               ::testing::HasSubstr("stub: out of device memory")));
  EXPECT_FALSE(huge->allocated());
  // The device is still usable: the failure left nothing behind.
  EXPECT_EQ(dev_->allocator().stats().live_bytes, 200u << 10);
  Allocated(800 << 10);
}

TEST_F(OutOfMemoryTest, OtherPluginErrorsAreNotRetried) {
  std::shared_ptr<Buffer> zero = Buffer::Create(*dev_, 0);
  EXPECT_EQ(zero->EnsureAllocated().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tg::runtime
