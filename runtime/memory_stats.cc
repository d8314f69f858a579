// memory_stats.cc: a typed, checked call into a plugin's "tg.memory_stats".
#include "runtime/memory_stats.h"

#include "absl/strings/str_cat.h"
#include "runtime/plugin_extension.h"

namespace tg::runtime {
namespace {

absl::StatusOr<const tg_memory_stats_ext*> Require(const Device& device) {
  const tg_memory_stats_ext* ext = FindExtension<tg_memory_stats_ext>(
      device.plugin(), TG_MEMORY_STATS_NAME, 1, TG_SIZE_TO(tg_memory_stats_ext, device_memory_stats));
  if (ext == nullptr || ext->device_memory_stats == nullptr)
    return absl::UnimplementedError(absl::StrCat("device ", device.name(), ": plugin ", device.plugin().Label(),
                                                 " has no ", TG_MEMORY_STATS_NAME, " extension (version 1)"));
  return ext;
}

}  // namespace

absl::StatusOr<MemoryStats> MemoryStatsOf(const Device& device) {
  absl::StatusOr<const tg_memory_stats_ext*> ext = Require(device);
  if (!ext.ok()) return ext.status();
  tg_memory_stats raw{};
  raw.struct_size = sizeof raw;
  if (absl::Status s = device.plugin().Check((*ext)->device_memory_stats(device.handle(), &raw), "device_memory_stats");
      !s.ok())
    return s;
  return MemoryStats{raw.bytes_in_use, raw.peak_bytes_in_use, raw.num_allocs, raw.largest_alloc_size, raw.bytes_limit};
}

}  // namespace tg::runtime
