// device_info.cc: props -> DeviceInfo.
#include "runtime/device_info.h"

#include <algorithm>

namespace tg::runtime {
namespace {

std::string Str(const char* s) { return s != nullptr ? s : ""; }

std::vector<std::string> StrList(const char* const* items, uint32_t n) {
  std::vector<std::string> out;
  for (uint32_t i = 0; items != nullptr && i < n; ++i) {
    if (items[i] != nullptr) out.emplace_back(items[i]);
  }
  return out;
}

}  // namespace

bool DeviceInfo::SupportsDialect(std::string_view d) const {
  return std::find(source_dialects.begin(), source_dialects.end(), d) != source_dialects.end();
}

DeviceInfo DeviceInfo::FromProps(const tg_device_props& p, std::string_view plugin, uint32_t ordinal) {
  DeviceInfo info;
  info.name = CanonicalDeviceName(plugin, ordinal);
  info.plugin = std::string(plugin);
  info.ordinal = ordinal;
  info.description = Str(p.name);
  info.vendor = Str(p.vendor);
  info.arch = Str(p.arch);
  info.fingerprint = Str(p.compile_fingerprint);
  info.global_mem_bytes = p.global_mem_bytes;
  info.max_alloc_bytes = p.max_alloc_bytes;
  info.local_mem_bytes = p.local_mem_bytes;
  info.min_offset_align = std::max<uint64_t>(1, p.min_offset_align);
  for (int i = 0; i < 3; ++i) info.max_group_size[i] = std::max(1u, p.max_group_size[i]);
  info.max_group_threads = std::max(1u, p.max_group_threads);
  info.preferred_vector_width = std::max(1u, p.preferred_vector_width);
  info.compute_units = std::max(1u, p.compute_units);
  info.caps = p.caps;
  info.device_type = p.device_type;
  info.source_dialects = StrList(p.source_dialects, p.num_source_dialects);
  info.binary_formats = StrList(p.binary_formats, p.num_binary_formats);
  return info;
}

std::string CanonicalDeviceName(std::string_view plugin, uint32_t ordinal) {
  std::string name(plugin);
  if (ordinal != 0) name += ":" + std::to_string(ordinal);
  return name;
}

}  // namespace tg::runtime
