// hip_plugin.cc: the HIP plugin's ABI surface: the function table and tg_plugin_get_api.
// The kit (plugins/kit/api_table.h) puts every entry point behind the exception guard.
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/compile_only.h"
#include "plugins/hip/hip_buffer.h"
#include "plugins/hip/hip_device.h"
#include "plugins/hip/hip_error.h"
#include "plugins/hip/hip_event.h"
#include "plugins/hip/hip_host_memory.h"
#include "plugins/hip/hip_launch.h"
#include "plugins/hip/hip_program.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/memory_stats.h"

const char tg_kit::kErrorPrefix[] = "hip: ";

namespace tg_hip {
namespace {

// The HIP runtime is dlopen()ed and hipInit runs on the first device query, never in initialize;
// hipInit cannot be undone, so the runtime stays loaded for the process.
tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("HIP", "0.1.0");
  TG_KIT_SET_ENTRIES(api, tg_hip);  // one in-order stream per device: no stream_create
  api.event_record = tg_kit::Entry<&EventRecord>;
  api.device_wait_event = tg_kit::Entry<&DeviceWaitEvent>;
  api.host_alloc = tg_kit::Entry<&HostAlloc>;
  api.host_free = tg_kit::Entry<&HostFree>;
  // "tg.memory_stats", then "tg.compile_only" (hiprtc without a GPU).
  api.extensions = tg_kit::MemoryStatsExtension<tg_device, &tg_device::global_mem>(CompileOnlyExtension());
  return api;
}

}  // namespace
}  // namespace tg_hip

TG_KIT_EXPORT_PLUGIN_API(tg_hip::MakeApi)
