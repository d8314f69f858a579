// ocl_plugin.cc: the OpenCL plugin's ABI surface: the function table and tg_plugin_get_api.
// The kit (plugins/kit/api_table.h) puts every entry point behind the exception guard.
#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/memory_stats.h"
#include "plugins/opencl/ocl_buffer.h"
#include "plugins/opencl/ocl_device.h"
#include "plugins/opencl/ocl_error.h"
#include "plugins/opencl/ocl_event.h"
#include "plugins/opencl/ocl_launch.h"
#include "plugins/opencl/ocl_platform.h"
#include "plugins/opencl/ocl_program.h"

const char tg_kit::kErrorPrefix[] = "opencl: ";

namespace tg_ocl {
namespace {

// The ICD loader is dlopen()ed on the first device query, not in initialize. Discovery results and
// the loaded library stay for the process: platform and root device ids are never released.
uint32_t DeviceCount(const char** reason) {
  const Discovery& d = Discover();
  if (reason != nullptr) *reason = d.devices.empty() ? d.reason.c_str() : nullptr;  // static storage
  return uint32_t(d.devices.size());
}

tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("OPENCL", "0.1.0");
  TG_KIT_SET_ENTRIES(api, tg_ocl);  // one in-order queue per device: no stream_create
  // "tg.memory_stats": what the buffers hold
  api.extensions = tg_kit::MemoryStatsExtension<tg_device, &tg_device::global_mem>(nullptr);
  return api;
}

}  // namespace
}  // namespace tg_ocl

TG_KIT_EXPORT_PLUGIN_API(tg_ocl::MakeApi)
