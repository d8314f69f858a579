// device_info.h: what the runtime knows about one device, copied out of the plugin's props.
// Read by the compiler (dialects, vector width, capabilities) to decide what code to generate.
#ifndef TG_RUNTIME_DEVICE_INFO_H_
#define TG_RUNTIME_DEVICE_INFO_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

struct DeviceInfo {
  std::string name;          // canonical: "CPU" for ordinal 0, "CPU:1" for ordinal 1, "OPENCL", ...
  std::string plugin;        // plugin_name, upper case
  uint32_t ordinal = 0;
  std::string description, vendor, arch, fingerprint;  // props.name / vendor / arch / compile_fingerprint
  uint64_t global_mem_bytes = 0, max_alloc_bytes = 0, local_mem_bytes = 0, min_offset_align = 1;
  std::array<uint32_t, 3> max_group_size{1, 1, 1};
  uint32_t max_group_threads = 1, preferred_vector_width = 1, compute_units = 1, caps = 0;
  uint32_t device_type = 0;  // TG_DEVICE_TYPE_*; 0 = the plugin did not say
  std::vector<std::string> source_dialects, binary_formats;

  bool SupportsDialect(std::string_view d) const;
  // The capability bits (TG_CAP_*), read here so nothing above the runtime decodes the ABI's bits.
  bool has_fp16() const { return (caps & TG_CAP_FP16) != 0; }
  bool has_fp64() const { return (caps & TG_CAP_FP64) != 0; }

  // Copies |props| (strings included, so the result outlives the device). Fields the plugin left
  // zero keep the defaults above where zero would be nonsense (alignment, group sizes, widths).
  // Call CheckProps first: FromProps reads the strings and lists it vouched for.
  static DeviceInfo FromProps(const tg_device_props& props, std::string_view plugin, uint32_t ordinal);
  // FAILED_PRECONDITION, naming the field, for props the host cannot read safely: a string not NUL-terminated
  // within kMaxPluginString bytes, a list of more than kMaxPluginListItems entries or NULL with a count.
  static absl::Status CheckProps(const tg_device_props& props);
};

// "CPU" for ordinal 0, "CPU:1" for ordinal 1: the name users type.
std::string CanonicalDeviceName(std::string_view plugin, uint32_t ordinal);

}  // namespace tg::runtime

#endif  // TG_RUNTIME_DEVICE_INFO_H_
