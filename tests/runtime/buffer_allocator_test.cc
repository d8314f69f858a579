// buffer_allocator_test.cc: freed allocations are reused by size, least recently freed go first.
#include "runtime/buffer_allocator.h"

#include <vector>

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

}  // namespace
}  // namespace tg::runtime
