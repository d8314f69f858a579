// buffer_allocator.cc: exact-size LRU reuse of device allocations.
#include "runtime/buffer_allocator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/plugin.h"

namespace tg::runtime {

BufferAllocator::BufferAllocator(const Plugin& plugin, tg_device* device, uint64_t max_cached_bytes,
                                 uint64_t max_cached_count)
    : plugin_(plugin), device_(device), max_bytes_(max_cached_bytes), max_count_(max_cached_count) {}

BufferAllocator::~BufferAllocator() { Flush(); }

absl::StatusOr<tg_buffer*> BufferAllocator::Allocate(uint64_t nbytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_size_.find(nbytes); it != by_size_.end() && !it->second.empty()) {
      tg_buffer* b = it->second.back()->buffer;
      EraseLocked(it->second.back());
      ++stats_.hits;
      CountLiveLocked(static_cast<int64_t>(nbytes));
      return b;
    }
    ++stats_.misses;
  }
  std::string what = absl::StrCat("buffer_alloc(", nbytes, " bytes)");
  tg_buffer* out = nullptr;
  absl::Status s = plugin_.Check(plugin_.api().buffer_alloc(device_, nbytes, 0, &out), what);
  if (s.code() == absl::StatusCode::kResourceExhausted) {
    Stats before = stats();
    Flush();  // idle cached memory may be exactly what the device is missing
    s = plugin_.Check(plugin_.api().buffer_alloc(device_, nbytes, 0, &out), what);
    if (s.code() == absl::StatusCode::kResourceExhausted) return OutOfMemory(nbytes, before, s);
  }
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  CountLiveLocked(static_cast<int64_t>(nbytes));
  return out;
}

absl::Status BufferAllocator::OutOfMemory(uint64_t nbytes, const Stats& before_flush,
                                          const absl::Status& plugin_error) const {
  Stats now = stats();
  return absl::ResourceExhaustedError(absl::StrCat(
      "out of device memory: ", nbytes, " bytes requested; ", now.live_bytes,
      " bytes held by live buffers; the allocation cache was emptied first (", before_flush.cached_count,
      " idle buffers, ", before_flush.cached_bytes,
      " bytes freed) and the allocation retried once. Release tensors you no longer need or use "
      "smaller batches. ",
      plugin_error.message()));
}

void BufferAllocator::CountLiveLocked(int64_t delta) {
  stats_.live_bytes = static_cast<uint64_t>(static_cast<int64_t>(stats_.live_bytes) + delta);
  stats_.peak_live_bytes = std::max(stats_.peak_live_bytes, stats_.live_bytes);
}

void BufferAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_live_bytes = stats_.live_bytes;
}

void BufferAllocator::Release(tg_buffer* buffer, uint64_t nbytes) {
  if (buffer == nullptr) return;
  std::vector<tg_buffer*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CountLiveLocked(-static_cast<int64_t>(nbytes));
    lru_.push_front({nbytes, buffer});
    by_size_[nbytes].push_back(lru_.begin());
    stats_.cached_bytes += nbytes;
    ++stats_.cached_count;
    EvictLocked();
    evicted.swap(to_free_);
  }
  FreeAll(std::move(evicted));
}

void BufferAllocator::Flush() {
  std::vector<tg_buffer*> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : lru_) all.push_back(e.buffer);
    lru_.clear();
    by_size_.clear();
    stats_.cached_bytes = stats_.cached_count = 0;
  }
  FreeAll(std::move(all));
}

void BufferAllocator::SetLimits(uint64_t max_cached_bytes, uint64_t max_cached_count) {
  std::vector<tg_buffer*> evicted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    max_bytes_ = max_cached_bytes;
    max_count_ = max_cached_count;
    EvictLocked();
    evicted.swap(to_free_);
  }
  FreeAll(std::move(evicted));
}

BufferAllocator::Stats BufferAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void BufferAllocator::EvictLocked() {
  while (!lru_.empty() && (stats_.cached_bytes > max_bytes_ || stats_.cached_count > max_count_)) {
    auto oldest = std::prev(lru_.end());
    to_free_.push_back(oldest->buffer);
    EraseLocked(oldest);
    ++stats_.evictions;
  }
}

void BufferAllocator::EraseLocked(Lru::iterator it) {
  auto bucket = by_size_.find(it->nbytes);
  std::vector<Lru::iterator>& v = bucket->second;
  v.erase(std::find(v.begin(), v.end(), it));
  if (v.empty()) by_size_.erase(bucket);
  stats_.cached_bytes -= it->nbytes;
  --stats_.cached_count;
  lru_.erase(it);
}

void BufferAllocator::FreeAll(std::vector<tg_buffer*> buffers) {
  for (tg_buffer* b : buffers) plugin_.api().buffer_free(b);
}

}  // namespace tg::runtime
