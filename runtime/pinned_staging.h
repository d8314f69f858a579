// pinned_staging.h: one device's page-locked upload blocks (the plugin's host_alloc). An upload is
// copied into a block and the device reads the block behind the host's back, so a host-to-device copy
// returns before the transfer ends and the host goes on enqueueing kernels (tinygrad's CUDA allocator
// stages its copy-ins the same way). A block goes back to a small cache once its copy's event has
// completed.
#ifndef TG_RUNTIME_PINNED_STAGING_H_
#define TG_RUNTIME_PINNED_STAGING_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/abi/tg_plugin.h"
#include "runtime/device_event.h"

namespace tg::runtime {

class Plugin;

class PinnedStaging {
 public:
  struct Block {
    void* ptr = nullptr;
    uint64_t bytes = 0;
  };
  // Uploads larger than this are copied from the caller's memory synchronously: pinning that much
  // host memory for one copy costs more than the wait it saves.
  static constexpr uint64_t kMaxStagedBytes = uint64_t{64} << 20;
  // Idle blocks kept for reuse at most.
  static constexpr uint64_t kMaxCachedBytes = uint64_t{128} << 20;

  // |plugin| and |device| must outlive this.
  PinnedStaging(const Plugin& plugin, tg_device* device);
  ~PinnedStaging() { Clear(); }
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Whether the plugin offers page-locked memory (host_alloc and host_free, ABI 1.1) and |nbytes|
  // is worth staging.
  bool Stages(uint64_t nbytes) const;
  // A block of at least |nbytes|: an idle cached one that fits, else host_alloc (a power of two of
  // at least 64 KiB, so blocks get reused across nearby sizes).
  absl::StatusOr<Block> Acquire(uint64_t nbytes);
  // |block| goes back to the cache once |copied| has completed (at once when it is empty).
  void Release(Block block, DeviceEvent copied);
  // Waits for every copy still reading a block (the device's queue has been drained, or is about to
  // be) and caches their blocks.
  void ReclaimAll();
  // ReclaimAll, then host_free of every block: before the device closes (host_free takes the device).
  void Clear();

  struct Counters {
    uint64_t allocs = 0;  // host_alloc calls
    uint64_t reuses = 0;  // Acquire answered from the cache
  };
  Counters counters() const;

 private:
  struct InFlight {
    Block block;
    DeviceEvent copied;
  };
  void ReclaimCompletedLocked();
  void CacheLocked(Block block);

  const Plugin& plugin_;
  tg_device* device_;
  mutable std::mutex mu_;  // guards everything below
  std::vector<Block> idle_;
  uint64_t idle_bytes_ = 0;
  std::vector<InFlight> in_flight_;
  Counters counters_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PINNED_STAGING_H_
