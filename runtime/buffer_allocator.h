// buffer_allocator.h: one device's allocator with an LRU cache of freed allocations by exact size,
// so the same-shaped temporaries of every training step reuse memory instead of calling the driver.
#ifndef TG_RUNTIME_BUFFER_ALLOCATOR_H_
#define TG_RUNTIME_BUFFER_ALLOCATOR_H_

#include <cstdint>
#include <list>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class Plugin;

class BufferAllocator {
 public:
  struct Stats {
    uint64_t hits = 0, misses = 0, evictions = 0;
    uint64_t cached_bytes = 0, cached_count = 0;
    uint64_t live_bytes = 0;       // held by buffers now (not counting the idle cache)
    uint64_t peak_live_bytes = 0;  // the most live_bytes has been since the last ResetPeak
  };

  // |plugin| and |device| must outlive the allocator. The cache keeps at most |max_cached_bytes|
  // and |max_cached_count| idle allocations; beyond either, the least recently freed go back to
  // the plugin.
  BufferAllocator(const Plugin& plugin, tg_device* device, uint64_t max_cached_bytes,
                  uint64_t max_cached_count = 4096);
  ~BufferAllocator();  // frees every cached allocation
  BufferAllocator(const BufferAllocator&) = delete;
  BufferAllocator& operator=(const BufferAllocator&) = delete;

  // A cached allocation of exactly |nbytes| (the most recently freed), else buffer_alloc. When the
  // plugin says RESOURCE_EXHAUSTED the cache is emptied and the allocation tried once more; a second
  // RESOURCE_EXHAUSTED names the bytes requested, held live, and freed from the cache, then the
  // plugin's message. Other errors carry the plugin's message; the caller owns the returned buffer
  // until Release.
  absl::StatusOr<tg_buffer*> Allocate(uint64_t nbytes);
  // Returns |buffer| (of |nbytes|) to the cache. Pending work on it is fine: the plugin orders
  // a reuse after it on the same stream.
  void Release(tg_buffer* buffer, uint64_t nbytes);
  // Frees every cached allocation.
  void Flush();

  void SetLimits(uint64_t max_cached_bytes, uint64_t max_cached_count);
  void ResetPeak();  // peak_live_bytes = live_bytes
  Stats stats() const;

 private:
  void CountLiveLocked(int64_t delta);
  absl::Status OutOfMemory(uint64_t nbytes, const Stats& before_flush, const absl::Status& plugin_error) const;
  struct Entry {
    uint64_t nbytes;
    tg_buffer* buffer;
  };
  using Lru = std::list<Entry>;  // front = most recently freed

  void EvictLocked();                      // trims to the limits
  void EraseLocked(Lru::iterator it);      // removes from both indexes, returns nothing to plugin
  void FreeAll(std::vector<tg_buffer*> buffers);  // outside the lock: buffer_free may be slow

  const Plugin& plugin_;
  tg_device* device_;
  mutable std::mutex mu_;
  uint64_t max_bytes_, max_count_;
  Lru lru_;
  absl::flat_hash_map<uint64_t, std::vector<Lru::iterator>> by_size_;  // back = most recent
  Stats stats_;
  std::vector<tg_buffer*> to_free_;  // evicted under the lock, freed after it
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_BUFFER_ALLOCATOR_H_
