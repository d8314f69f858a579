// host_memory.cc: posix_memalign, with huge-page advice for what spans a huge page.
#include "plugins/cpu/host_memory.h"

#include <stdlib.h>
#include <sys/mman.h>

namespace tg_cpu {

void* AllocateHostMemory(uint64_t bytes, uint64_t align) {
  const bool huge = bytes >= kHugePageBytes;
  void* data = nullptr;
  if (posix_memalign(&data, huge ? kHugePageBytes : align, bytes) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: an error (no transparent huge pages in this kernel) leaves ordinary pages.
  if (huge) madvise(data, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
#endif
  return data;
}

void FreeHostMemory(void* data) { free(data); }

}  // namespace tg_cpu
