// hip_plugin.cc: the HIP plugin's ABI surface: the function table and tg_plugin_get_api.
// The kit (plugins/kit/api_table.h) puts every entry point behind the exception guard.
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/compile_only.h"
#include "plugins/hip/hip_buffer.h"
#include "plugins/hip/hip_device.h"
#include "plugins/hip/hip_error.h"
#include "plugins/hip/hip_event.h"
#include "plugins/hip/hip_launch.h"
#include "plugins/hip/hip_program.h"
#include "plugins/kit/api_table.h"

const char tg_kit::kErrorPrefix[] = "hip: ";

namespace tg_hip {
namespace {

// The HIP runtime is dlopen()ed and hipInit runs on the first device query, never in initialize;
// hipInit cannot be undone, so the runtime stays loaded for the process.
tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("HIP", "0.1.0");
  TG_KIT_SET_ENTRIES(api, tg_hip);  // one in-order stream per device: no stream_create
  api.device_count = tg_kit::DeviceCountEntry<&DeviceCount>;
  api.unavailable_reason = tg_kit::UnavailableReasonEntry<&DeviceCount>;
  api.extensions = CompileOnlyExtension();  // "tg.compile_only": hiprtc without a GPU
  return api;
}

const tg_plugin_api kApi = MakeApi();

}  // namespace
}  // namespace tg_hip

extern "C" TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major,
                                                            uint32_t /*host_abi_minor*/) {
  return tg_kit::ApiForHost(host_abi_major, &tg_hip::kApi);
}
