// device_info.cc: props -> DeviceInfo.
#include "runtime/device_info.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/plugin.h"

namespace tg::runtime {
namespace {

std::string Str(const char* s) { return PluginString(s).value_or(""); }

std::vector<std::string> StrList(const char* const* items, uint32_t n) {
  std::vector<std::string> out;
  for (uint32_t i = 0; items != nullptr && i < n && i < kMaxPluginListItems; ++i) {
    if (items[i] != nullptr) out.push_back(Str(items[i]));
  }
  return out;
}

absl::Status CheckString(const char* s, const char* field) {
  if (PluginString(s)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("device_props: ", field, " is not NUL-terminated within ",
                                                    kMaxPluginString, " bytes"));
}

absl::Status CheckList(const char* const* items, uint32_t n, const char* field) {
  if (n > kMaxPluginListItems) {
    return absl::FailedPreconditionError(absl::StrCat("device_props: ", field, " has ", n, " entries; at most ",
                                                      kMaxPluginListItems, " are allowed"));
  }
  if (n > 0 && items == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("device_props: ", field, " is NULL with a count of ", n));
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (absl::Status s = CheckString(items[i], field); !s.ok()) return s;
  }
  return absl::OkStatus();
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

absl::Status DeviceInfo::CheckProps(const tg_device_props& p) {
  for (auto [s, field] : {std::pair{p.name, "name"}, std::pair{p.vendor, "vendor"}, std::pair{p.arch, "arch"},
                          std::pair{p.compile_fingerprint, "compile_fingerprint"}}) {
    if (absl::Status st = CheckString(s, field); !st.ok()) return st;
  }
  if (absl::Status s = CheckList(p.source_dialects, p.num_source_dialects, "source_dialects"); !s.ok()) return s;
  return CheckList(p.binary_formats, p.num_binary_formats, "binary_formats");
}

std::string CanonicalDeviceName(std::string_view plugin, uint32_t ordinal) {
  std::string name(plugin);
  if (ordinal != 0) name += ":" + std::to_string(ordinal);
  return name;
}

}  // namespace tg::runtime
