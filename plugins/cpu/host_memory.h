// host_memory.h: the CPU plugin's allocations. A buffer of a huge page or more is aligned to one and
// advised to use huge pages (Linux transparent huge pages in `madvise` mode, Debian's default): a kernel
// streaming a large buffer through 4 KiB pages takes a TLB miss per page and its hardware prefetch stops
// at every page edge; a two-thread read of 256 MiB ran 1.3-1.9x as fast on huge pages
// (tools/bench/RESULTS.md). Smaller buffers stay on ordinary pages: rounded up to a huge page each
// they would waste memory, and a pass over many such buffers measured no faster. Where the kernel has
// no transparent huge pages the advice does nothing.
#ifndef TG_PLUGINS_CPU_HOST_MEMORY_H_
#define TG_PLUGINS_CPU_HOST_MEMORY_H_

#include <cstdint>

namespace tg_cpu {

constexpr uint64_t kHugePageBytes = uint64_t{2} << 20;

// |bytes| (a multiple of |align|, a power of two) of host memory aligned to |align|, or to a huge page
// when it holds at least one; nullptr when the machine has no memory for it. Freed with FreeHostMemory.
void* AllocateHostMemory(uint64_t bytes, uint64_t align);
void FreeHostMemory(void* data);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_HOST_MEMORY_H_
