// device_registry.h: every plugin found, every device they offer, and name -> Device lookup
// (docs/architecture.md). The entry point of the runtime: `DeviceRegistry::Global().GetDevice("CPU")`.
#ifndef TG_RUNTIME_DEVICE_REGISTRY_H_
#define TG_RUNTIME_DEVICE_REGISTRY_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/device.h"
#include "runtime/plugin.h"
#include "runtime/plugin_report.h"

namespace tg::runtime {

class DeviceRegistry {
 public:
  // Loads exactly |plugin_paths|, in order (a plugin name seen twice: the second is reported
  // "failed: duplicate of <path>"). Devices open on first use. For tests and tools that need
  // their own set of plugins; everything else uses Global().
  explicit DeviceRegistry(std::vector<std::string> plugin_paths);
  // Closes devices and shuts plugins down (libraries stay loaded). Buffers and programs of its
  // devices must be gone first.
  ~DeviceRegistry();
  DeviceRegistry(const DeviceRegistry&) = delete;
  DeviceRegistry& operator=(const DeviceRegistry&) = delete;

  static DeviceRegistry& Global();    // discovers and loads plugins once, on first use, thread-safe
  // "CPU", "cpu", "CPU:0", "CPU:1". Unknown or failed names -> NotFound/Unavailable whose message lists every
  // device that exists and, for a plugin of that name that failed to load, its reason.
  absl::StatusOr<Device*> GetDevice(std::string_view name);
  // TG_DEVICE if set (an error if that device cannot be had, never a silent fallback); else the first device
  // of the highest-priority plugin that has one (CUDA > HIP > OPENCL > third-party > CPU).
  absl::StatusOr<Device*> DefaultDevice();
  // Opens every device (to report its properties); a device that fails to open is named in its
  // plugin's reason.
  std::vector<PluginReport> Plugins() const;
  std::vector<std::string> DeviceNames() const;   // canonical names, plugins in load order

 private:
  struct Entry {
    PluginReport report;
    std::string match_name;                         // upper case; from the path if the table never loaded
    bool duplicate = false;
    std::unique_ptr<Plugin> plugin;                 // null when loading failed
    uint32_t device_count = 0;
    std::vector<std::unique_ptr<Device>> devices;   // declared after plugin: destroyed first
    std::vector<std::string> open_errors;           // per ordinal, "" until a failed open
  };

  void Load(const std::string& path);
  absl::StatusOr<Device*> OpenLocked(Entry& e, uint32_t ordinal) const;
  absl::StatusOr<Device*> DefaultLocked();
  std::string AvailableLocked() const;              // "available devices: ...; plugins that ..."
  void PrintDebugSummary() const;

  mutable std::mutex mu_;
  mutable std::vector<Entry> entries_;  // devices open lazily, even from const Plugins()
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_DEVICE_REGISTRY_H_
