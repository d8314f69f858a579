// tg::memory_stats: what a device's buffers hold, from its plugin's "tg.memory_stats", on every device.
#include <cstdint>
#include <string>

#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

// A size nothing else in the process allocates, so the allocator has no such buffer cached and a
// new tensor of it is a new plugin allocation.
constexpr int64_t kElements = 1234567;
constexpr uint64_t kBytes = kElements * sizeof(float);

TEST(MemoryStats, ATensorsBufferCountsWhileTheDeviceHoldsIt) {
  const std::string device = default_device();
  const MemoryStats before = memory_stats(device);
  Tensor t = (Tensor::ones({kElements}) * 3).realize();
  const MemoryStats during = memory_stats();  // the default device, unnamed
  EXPECT_GE(during.bytes_in_use, before.bytes_in_use + kBytes);
  EXPECT_GE(during.num_allocs, before.num_allocs + 1);
  EXPECT_GE(during.largest_alloc_size, kBytes);
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  EXPECT_TRUE(during.bytes_limit == 0 || during.bytes_limit >= during.bytes_in_use) << during.bytes_limit;
  EXPECT_EQ(t.to_vector<float>()[kElements - 1], 3.0f);
}

TEST(MemoryStats, AnUnknownDeviceIsAnError) {
  try {
    memory_stats("NOSUCHDEVICE");
    FAIL() << "expected a tg::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("NOSUCHDEVICE"));
  }
}

}  // namespace
}  // namespace tg
