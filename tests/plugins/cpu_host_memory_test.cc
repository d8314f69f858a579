// The CPU plugin's host allocations: small buffers keep the asked alignment, buffers of a huge page or
// more start on a huge page boundary, and the memory is the caller's to write and read back.
#include "plugins/cpu/host_memory.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tg_cpu {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(CpuHostMemory, SmallBuffersKeepTheAskedAlignment) {
  for (uint64_t bytes : {uint64_t{64}, uint64_t{4096}, kHugePageBytes - 64}) {
    void* p = AllocateHostMemory(bytes, 64);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(Address(p) % 64, 0u) << bytes;
    std::memset(p, 0x5a, bytes);
    EXPECT_EQ(static_cast<unsigned char*>(p)[bytes - 1], 0x5a) << bytes;
    FreeHostMemory(p);
  }
}

TEST(CpuHostMemory, LargeBuffersStartOnAHugePage) {
  for (uint64_t bytes : {kHugePageBytes, 3 * kHugePageBytes + 64}) {
    void* p = AllocateHostMemory(bytes, 64);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(Address(p) % kHugePageBytes, 0u) << bytes;
    std::memset(p, 0xa5, bytes);
    EXPECT_EQ(static_cast<unsigned char*>(p)[bytes - 1], 0xa5) << bytes;
    FreeHostMemory(p);
  }
}

// Where the kernel takes the advice (transparent huge pages in `madvise` or `always` mode), the mapping
// of a large buffer says so in /proc/self/smaps: "VmFlags: ... hg".
TEST(CpuHostMemory, LargeBuffersAreAdvisedToUseHugePages) {
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(mode_file)), std::istreambuf_iterator<char>());
  if (mode.find("[never]") != std::string::npos || mode.empty())
    GTEST_SKIP() << "this kernel has no transparent huge pages to advise";
  const uint64_t bytes = 2 * kHugePageBytes;
  void* p = AllocateHostMemory(bytes, 64);
  ASSERT_NE(p, nullptr);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false, advised = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= Address(p) && Address(p) < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      advised = (line + " ").find(" hg ") != std::string::npos;
    }
  }
  EXPECT_TRUE(advised) << "no huge-page advice on the mapping of a " << bytes << "-byte buffer";
  FreeHostMemory(p);
}

}  // namespace
}  // namespace tg_cpu
