#include "frontend/devices.h"

#include "compiler/buffer_node.h"
#include "runtime/device_registry.h"

namespace tg {

std::vector<DeviceDescription> available_devices() {
  std::vector<DeviceDescription> out;
  for (const runtime::PluginReport& plugin : runtime::DeviceRegistry::Global().Plugins())
    for (const runtime::DeviceInfo& d : plugin.devices)
      out.push_back({d.name, d.description, d.arch, d.preferred_vector_width, d.compute_units, d.global_mem_bytes});
  return out;
}

std::string default_device() {
  absl::StatusOr<runtime::Device*> device = runtime::DeviceRegistry::Global().DefaultDevice();
  compiler::ThrowIfError(device.status());
  return (*device)->name();
}

}  // namespace tg
