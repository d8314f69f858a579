// device_registry.cc: plugin loading, device naming and selection.
#include "runtime/device_registry.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/env.h"
#include "runtime/plugin_discovery.h"
#include "runtime/plugin_loader.h"

namespace tg::runtime {
namespace {

// Lower ranks win auto-selection: accelerators first, the CPU last.
int Priority(const std::string& plugin) {
  if (plugin == "CUDA") return 0;
  if (plugin == "HIP") return 1;
  if (plugin == "OPENCL") return 2;
  if (plugin == "CPU") return 4;
  return 3;
}

// Auto-selection order of an opened device: GPUs and accelerators (by plugin priority), then
// devices of unknown type, then CPUs with our own CPU plugin first (an OpenCL CPU device such as
// PoCL is a slower way to reach the same cores).
std::pair<int, int> Rank(const DeviceInfo& d) {
  switch (d.device_type) {
    case TG_DEVICE_TYPE_GPU: case TG_DEVICE_TYPE_ACCELERATOR: return {0, Priority(d.plugin)};
    case TG_DEVICE_TYPE_CPU: return {2, d.plugin == "CPU" ? 0 : 1};
    default: return {1, Priority(d.plugin)};
  }
}

// The name a plugin file would have ("libtg_acme.so" -> "ACME"), to match a requested device
// against a plugin that failed before its table could be read.
std::string NameFromPath(const std::string& path) {
  std::string file = path.substr(path.rfind('/') + 1);
  if (absl::StartsWith(file, "libtg_") && absl::EndsWith(file, ".so")) {
    file = file.substr(6, file.size() - 9);
  }
  return absl::AsciiStrToUpper(file);
}

// "cpu:1" -> {"CPU", 1}; false for a malformed ordinal.
bool ParseName(std::string_view name, std::string* plugin, uint32_t* ordinal) {
  std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(std::string(name)));
  size_t colon = upper.find(':');
  *plugin = upper.substr(0, colon);
  *ordinal = 0;
  return colon == std::string::npos || absl::SimpleAtoi(upper.substr(colon + 1), ordinal);
}

}  // namespace

DeviceRegistry::DeviceRegistry(std::vector<std::string> plugin_paths) {
  for (const std::string& path : plugin_paths) Load(path);
  PrintDebugSummary();
}

DeviceRegistry::~DeviceRegistry() = default;

DeviceRegistry& DeviceRegistry::Global() {
  // Leaked on purpose: devices live until exit and plugin threads may outlive static destructors.
  static DeviceRegistry* global = new DeviceRegistry(DiscoverPluginPaths());
  return *global;
}

// TG_DISABLE_PLUGINS=OPENCL,HIP keeps plugins out of the process without loading them: vendor
// runtimes that cannot share a process (two embedded LLVMs) or a driver that misbehaves.
bool DisabledByEnv(const std::string& name) {
  std::string list = tg::GetEnvString("TG_DISABLE_PLUGINS", "");
  for (absl::string_view item : absl::StrSplit(list, ',', absl::SkipWhitespace()))
    if (absl::AsciiStrToUpper(absl::StripAsciiWhitespace(item)) == name) return true;
  return false;
}

void DeviceRegistry::Load(const std::string& path) {
  Entry e;
  if (DisabledByEnv(NameFromPath(path))) {
    e.match_name = NameFromPath(path);
    e.report.path = path;
    e.report.status = "disabled";
    e.report.reason = "TG_DISABLE_PLUGINS names " + e.match_name;
    entries_.push_back(std::move(e));
    return;
  }
  absl::StatusOr<LoadedPlugin> loaded = LoadPlugin(path, &e.report);
  e.match_name = absl::AsciiStrToUpper(e.report.name.empty() ? NameFromPath(path) : e.report.name);
  if (loaded.ok()) {
    std::string name = loaded->plugin->name();
    for (const Entry& other : entries_) {
      if (other.plugin != nullptr && other.plugin->name() == name) {
        e.report.status = "failed";
        e.report.reason = absl::StrCat("duplicate of ", other.report.path);
        e.duplicate = true;
        entries_.push_back(std::move(e));  // |loaded| shuts the duplicate down
        return;
      }
    }
    e.plugin = std::move(loaded->plugin);
    e.device_count = loaded->device_count;
    e.devices.resize(e.device_count);
    e.open_errors.resize(e.device_count);
  }
  entries_.push_back(std::move(e));
}

void DeviceRegistry::PrintDebugSummary() const {
  if (tg::DebugLevel() < 1) return;
  for (const Entry& e : entries_) {
    std::string devices;
    for (uint32_t i = 0; i < e.device_count; ++i) {
      absl::StrAppend(&devices, i ? ", " : "", CanonicalDeviceName(e.plugin->name(), i));
    }
    std::fprintf(stderr, "tg: plugin %s (%s): %s%s%s\n", e.match_name.c_str(), e.report.path.c_str(),
                 e.report.status.c_str(), e.report.reason.empty() ? "" : (": " + e.report.reason).c_str(),
                 devices.empty() ? "" : (" -> " + devices).c_str());
  }
}

absl::StatusOr<Device*> DeviceRegistry::OpenLocked(Entry& e, uint32_t ordinal) const {
  if (e.devices[ordinal] != nullptr) return e.devices[ordinal].get();
  absl::StatusOr<std::unique_ptr<Device>> d = Device::Open(*e.plugin, ordinal);
  if (!d.ok()) {
    e.open_errors[ordinal] = std::string(d.status().message());
    return d.status();
  }
  e.devices[ordinal] = *std::move(d);
  return e.devices[ordinal].get();
}

std::string DeviceRegistry::AvailableLocked() const {
  std::vector<std::string> names, failed;
  for (const Entry& e : entries_) {
    for (uint32_t i = 0; i < e.device_count; ++i) names.push_back(CanonicalDeviceName(e.plugin->name(), i));
    if (e.device_count == 0) {
      failed.push_back(absl::StrCat(e.match_name, " (", e.report.path, "): ", e.report.status, ": ", e.report.reason));
    }
  }
  std::string out = absl::StrCat("available devices: ", names.empty() ? "(none)" : absl::StrJoin(names, ", "));
  if (!failed.empty()) absl::StrAppend(&out, "; plugins without devices: ", absl::StrJoin(failed, "; "));
  return out;
}

absl::StatusOr<Device*> DeviceRegistry::GetDevice(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string plugin;
  uint32_t ordinal = 0;
  if (!ParseName(name, &plugin, &ordinal)) {
    return absl::InvalidArgumentError(absl::StrCat("bad device name '", std::string(name),
                                                   "': expected NAME or NAME:N; ", AvailableLocked()));
  }
  for (Entry& e : entries_) {
    if (e.duplicate || e.match_name != plugin) continue;
    if (e.plugin == nullptr || e.device_count == 0) {
      return absl::UnavailableError(absl::StrCat("device '", std::string(name), "' is unavailable: plugin ", e.match_name, " (",
                                                 e.report.path, ") ", e.report.status, ": ", e.report.reason,
                                                 "; ", AvailableLocked()));
    }
    if (ordinal >= e.device_count) break;
    return OpenLocked(e, ordinal);
  }
  return absl::NotFoundError(absl::StrCat("unknown device '", std::string(name), "'; ", AvailableLocked()));
}

absl::StatusOr<Device*> DeviceRegistry::DefaultDevice() {
  const char* env = std::getenv("TG_DEVICE");
  if (env != nullptr && *env != '\0') {
    absl::StatusOr<Device*> d = GetDevice(env);
    if (!d.ok()) {
      return absl::Status(d.status().code(), absl::StrCat("TG_DEVICE=", env, ": ", d.status().message()));
    }
    return d;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return DefaultLocked();
}

absl::StatusOr<Device*> DeviceRegistry::DefaultLocked() {
  std::vector<Device*> candidates;
  std::vector<std::string> errors;
  for (Entry& e : entries_) {
    if (e.plugin == nullptr || e.device_count == 0) continue;
    absl::StatusOr<Device*> d = OpenLocked(e, 0);
    if (d.ok()) candidates.push_back(*d);
    else errors.push_back(std::string(d.status().message()));
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Device* a, const Device* b) { return Rank(a->info()) < Rank(b->info()); });
  if (!candidates.empty()) return candidates.front();
  return absl::UnavailableError(absl::StrCat("no usable device; ", AvailableLocked(),
                                             errors.empty() ? "" : "; open errors: ", absl::StrJoin(errors, "; ")));
}

std::vector<PluginReport> DeviceRegistry::Plugins() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PluginReport> out;
  for (Entry& e : entries_) {
    PluginReport r = e.report;
    for (uint32_t i = 0; i < e.device_count; ++i) {
      absl::StatusOr<Device*> d = OpenLocked(e, i);
      if (d.ok()) {
        r.devices.push_back((*d)->info());
      } else {
        absl::StrAppend(&r.reason, r.reason.empty() ? "" : "; ", d.status().message());
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> DeviceRegistry::DeviceNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const Entry& e : entries_) {
    for (uint32_t i = 0; i < e.device_count; ++i) names.push_back(CanonicalDeviceName(e.plugin->name(), i));
  }
  return names;
}

}  // namespace tg::runtime
