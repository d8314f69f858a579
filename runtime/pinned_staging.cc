// pinned_staging.cc: page-locked upload blocks, recycled when their copies complete.
#include "runtime/pinned_staging.h"

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "runtime/plugin.h"

namespace tg::runtime {
namespace {

constexpr uint64_t kMinBlockBytes = uint64_t{64} << 10;

bool HasHostMemory(const tg_plugin_api& api) {
  return ApiHas(api, TG_SIZE_TO(tg_plugin_api, host_alloc), &tg_plugin_api::host_alloc) &&
         ApiHas(api, TG_SIZE_TO(tg_plugin_api, host_free), &tg_plugin_api::host_free);
}

}  // namespace

PinnedStaging::PinnedStaging(const Plugin& plugin, tg_device* device) : plugin_(plugin), device_(device) {}

void PinnedStaging::Clear() {
  ReclaimAll();
  std::lock_guard<std::mutex> lock(mu_);
  for (const Block& b : idle_) plugin_.api().host_free(device_, b.ptr);
  idle_.clear();
  idle_bytes_ = 0;
}

bool PinnedStaging::Stages(uint64_t nbytes) const {
  return nbytes > 0 && nbytes <= kMaxStagedBytes && HasHostMemory(plugin_.api());
}

absl::StatusOr<PinnedStaging::Block> PinnedStaging::Acquire(uint64_t nbytes) {
  std::lock_guard<std::mutex> lock(mu_);
  ReclaimCompletedLocked();
  // The smallest idle block that fits.
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->bytes >= nbytes && (best == idle_.end() || it->bytes < best->bytes)) best = it;
  }
  if (best != idle_.end()) {
    Block b = *best;
    idle_.erase(best);
    idle_bytes_ -= b.bytes;
    ++counters_.reuses;
    return b;
  }
  Block b;
  b.bytes = std::max(kMinBlockBytes, std::bit_ceil(nbytes));
  absl::Status s = plugin_.Check(plugin_.api().host_alloc(device_, b.bytes, &b.ptr),
                                 absl::StrCat("host_alloc of ", b.bytes, " page-locked bytes"));
  if (!s.ok()) return s;
  if (b.ptr == nullptr) return absl::InternalError(absl::StrCat(plugin_.Label(), ": host_alloc returned NULL"));
  ++counters_.allocs;
  return b;
}

void PinnedStaging::Release(Block block, DeviceEvent copied) {
  std::lock_guard<std::mutex> lock(mu_);
  if (copied.empty()) {
    CacheLocked(block);
  } else {
    in_flight_.push_back({block, std::move(copied)});
  }
}

void PinnedStaging::ReclaimAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (InFlight& f : in_flight_) {
    // A failed copy reports its error at the device's next sync; the block is free either way.
    plugin_.Own(plugin_.api().event_wait(f.copied.get(), UINT64_MAX));
    CacheLocked(f.block);
  }
  in_flight_.clear();
}

PinnedStaging::Counters PinnedStaging::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void PinnedStaging::ReclaimCompletedLocked() {
  auto done = [&](InFlight& f) {
    uint32_t complete = 0;
    plugin_.Own(plugin_.api().event_query(f.copied.get(), &complete));
    if (complete == 0) return false;
    CacheLocked(f.block);
    return true;
  };
  in_flight_.erase(std::remove_if(in_flight_.begin(), in_flight_.end(), done), in_flight_.end());
}

void PinnedStaging::CacheLocked(Block block) {
  if (idle_bytes_ + block.bytes > kMaxCachedBytes) {
    plugin_.api().host_free(device_, block.ptr);
    return;
  }
  idle_.push_back(block);
  idle_bytes_ += block.bytes;
}

}  // namespace tg::runtime
