// SPDX-License-Identifier: Apache-2.0
// memory_stats.h: "tg.memory_stats" (tg_plugin.h) for a C++ plugin: the counter its buffer_alloc and
// buffer_free bump, device_memory_stats over it (checks, and a write bounded by the caller's
// struct_size), and the extension's table entry.
#ifndef TG_PLUGINS_KIT_MEMORY_STATS_H_
#define TG_PLUGINS_KIT_MEMORY_STATS_H_

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/plugin_error.h"
#include "plugins/kit/sized_struct.h"

namespace tg_kit {

// One device's allocations. Thread-safe: buffers are allocated and freed from any thread.
class MemoryCounter {
 public:
  void Allocated(uint64_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ += bytes;
    peak_ = std::max(peak_, in_use_);
    ++allocs_;
    largest_ = std::max(largest_, bytes);
  }

  void Freed(uint64_t bytes) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    in_use_ -= std::min(in_use_, bytes);
  }

  tg_memory_stats Snapshot(uint64_t bytes_limit) const noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    tg_memory_stats s{};
    s.struct_size = sizeof s;
    s.bytes_in_use = in_use_;
    s.peak_bytes_in_use = peak_;
    s.num_allocs = allocs_;
    s.largest_alloc_size = largest_;
    s.bytes_limit = bytes_limit;
    return s;
  }

 private:
  mutable std::mutex mu_;
  uint64_t in_use_ = 0, peak_ = 0, allocs_ = 0, largest_ = 0;
};

// The body of a plugin's device_memory_stats: |counter| is NULL when the device is.
inline tg_error* WriteMemoryStats(const MemoryCounter* counter, uint64_t bytes_limit, tg_memory_stats* inout) noexcept {
  if (counter == nullptr || inout == nullptr)
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_memory_stats: NULL device or stats");
  WriteSized(counter->Snapshot(bytes_limit), inout);
  return nullptr;
}

// device_memory_stats for a plugin whose Device (its tg_device) holds `MemoryCounter memory` and
// its capacity in the member |Limit|.
template <class Device, uint64_t Device::*Limit>
tg_error* DeviceMemoryStats(Device* device, tg_memory_stats* inout) noexcept {
  return WriteMemoryStats(device != nullptr ? &device->memory : nullptr, device != nullptr ? device->*Limit : 0, inout);
}

// The extension's entry, chained before |next| (the first call's |next| is kept), in static storage
// as the api table's extensions must be: api.extensions = MemoryStatsExtension<tg_device,
// &tg_device::global_mem>(other_extensions).
template <class Device, uint64_t Device::*Limit>
const tg_ext* MemoryStatsExtension(const tg_ext* next) {
  static const tg_memory_stats_ext ext = [next] {
    auto e = NewExtension<tg_memory_stats_ext>(TG_MEMORY_STATS_NAME, TG_MEMORY_STATS_VERSION, next);
    e.device_memory_stats = DeviceMemoryStats<Device, Limit>;
    return e;
  }();
  return &ext.base;
}

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_MEMORY_STATS_H_
