// devices_command.cc: formatting of the plugin/device table.
#include "tools/devices_command.h"

#include <cstdio>
#include <string>

#include "plugins/abi/tg_plugin.h"
#include "runtime/device_registry.h"
#include "runtime/plugin_discovery.h"
#include "tools/plugin_probe.h"

namespace tg::tools {
namespace {

std::string Memory(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(uint64_t{1} << 30));
  return buf;
}

// The device type as tools/gpu_check.sh and a reader look for it ("type gpu").
const char* TypeName(uint32_t device_type) {
  switch (device_type) {
    case TG_DEVICE_TYPE_CPU: return "cpu";
    case TG_DEVICE_TYPE_GPU: return "gpu";
    case TG_DEVICE_TYPE_ACCELERATOR: return "accelerator";
    default: return "unknown";
  }
}

void PrintDevice(const runtime::DeviceInfo& d, std::ostream& out) {
  out << "    " << d.name << ": " << (d.description.empty() ? "(no description)" : d.description) << "\n"
      << "      arch " << d.arch << ", vector width " << d.preferred_vector_width << ", "
      << d.compute_units << " compute units, " << Memory(d.global_mem_bytes) << " memory, type "
      << TypeName(d.device_type) << ", dialects:";
  for (const std::string& s : d.source_dialects) out << " " << s;
  out << "\n";
}

}  // namespace

void PrintDevices(const std::vector<runtime::PluginReport>& reports, std::ostream& out) {
  if (reports.empty()) {
    out << "no plugins found (looked in the runfiles, next to the binary and in TG_PLUGIN_PATH)\n";
    return;
  }
  for (const runtime::PluginReport& r : reports) {
    out << (r.name.empty() ? "(unknown)" : r.name);
    if (!r.version.empty()) out << " " << r.version;
    if (r.abi_major != 0) out << "  ABI " << r.abi_major << "." << r.abi_minor;
    out << "  [" << r.status << "]\n  path: " << r.path << "\n";
    if (!r.reason.empty()) out << "  reason: " << r.reason << "\n";
    for (const runtime::DeviceInfo& d : r.devices) PrintDevice(d, out);
  }
}

int ProbeDevicesCommand(std::ostream& out, int timeout_seconds) {
  std::vector<std::string> paths = runtime::DiscoverPluginPaths();
  if (paths.empty()) PrintDevices({}, out);
  bool any_devices = false;
  for (const std::string& path : paths) {
    ProbeResult r = ProbePlugin(path, timeout_seconds);
    out << (r.completed ? r.report : CrashedBlock(r)) << std::flush;
    any_devices |= r.has_devices;
  }
  return any_devices ? 0 : 1;
}

int DevicesCommand(std::ostream& out) {
  runtime::DeviceRegistry& registry = runtime::DeviceRegistry::Global();
  std::vector<runtime::PluginReport> reports = registry.Plugins();
  PrintDevices(reports, out);
  for (const runtime::PluginReport& r : reports) {
    if (!r.devices.empty()) return 0;
  }
  return 1;
}

}  // namespace tg::tools
