#include "frontend/devices.h"

#include "compiler/compiler.h"
#include "runtime/device_registry.h"
#include "runtime/memory_stats.h"

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

namespace tg {

bool device_supports(const std::string& device, DType dtype) {
  absl::StatusOr<runtime::Device*> d = runtime::DeviceRegistry::Global().GetDevice(device);
  compiler::ThrowIfError(d.status());
  return compiler::TargetOf(**d).Computes(dtype);
}

}  // namespace tg

namespace tg {

uint64_t programs_made(const std::string& device) {
  const auto& counters = compiler::DeviceNamed(device.empty() ? default_device() : device).program_cache().counters();
  return counters.compiles.load() + counters.disk_loads.load();
}

MemoryStats memory_stats(const std::string& device) {
  absl::StatusOr<runtime::MemoryStats> s =
      runtime::MemoryStatsOf(compiler::DeviceNamed(device.empty() ? default_device() : device));
  compiler::ThrowIfError(s.status());
  return {s->bytes_in_use, s->peak_bytes_in_use, s->num_allocs, s->largest_alloc_size, s->bytes_limit};
}

}  // namespace tg
