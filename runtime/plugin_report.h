// plugin_report.h: the loader's verdict on one plugin file, one row of `tg devices`.
// Filled step by step by LoadPlugin, completed with device infos by the DeviceRegistry.
#ifndef TG_RUNTIME_PLUGIN_REPORT_H_
#define TG_RUNTIME_PLUGIN_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device_info.h"

namespace tg::runtime {

struct PluginReport {        // one row of `tg devices`
  std::string path;          // the .so path tried
  std::string name, version; // from the api table ("" if it never loaded that far)
  uint32_t abi_major = 0, abi_minor = 0;
  std::string status;        // "ok", "no devices", "failed"
  std::string reason;        // why failed / why no devices (unavailable_reason), "" when ok
  std::vector<DeviceInfo> devices;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PLUGIN_REPORT_H_
