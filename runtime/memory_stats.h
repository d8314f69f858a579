// memory_stats.h: how much of a device's memory its plugin's buffers hold, through the plugin's
// "tg.memory_stats" extension (tg_plugin.h; PJRT's MemoryStats fields). Buffers the host's allocator
// keeps for reuse (buffer_allocator.h) count: the plugin sees them allocated.
#ifndef TG_RUNTIME_MEMORY_STATS_H_
#define TG_RUNTIME_MEMORY_STATS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tg::runtime {

struct MemoryStats {
  uint64_t bytes_in_use = 0;
  uint64_t peak_bytes_in_use = 0;  // since the device was opened
  uint64_t num_allocs = 0;
  uint64_t largest_alloc_size = 0;
  uint64_t bytes_limit = 0;  // 0: unknown
};

// UNIMPLEMENTED (naming the plugin) when the plugin lacks the extension; else the plugin's error.
absl::StatusOr<MemoryStats> MemoryStatsOf(const Device& device);

}  // namespace tg::runtime

#endif  // TG_RUNTIME_MEMORY_STATS_H_
