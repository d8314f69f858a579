// cuda_plugin.cc: the CUDA plugin's ABI surface: the function table and tg_plugin_get_api.
// The kit (plugins/kit/api_table.h) puts every entry point behind the exception guard.
#include "plugins/abi/tg_plugin.h"
#include "plugins/cuda/compile_only.h"
#include "plugins/cuda/cuda_buffer.h"
#include "plugins/cuda/cuda_device.h"
#include "plugins/cuda/cuda_error.h"
#include "plugins/cuda/cuda_event.h"
#include "plugins/cuda/cuda_launch.h"
#include "plugins/cuda/cuda_native_handles.h"
#include "plugins/cuda/cuda_program.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/memory_stats.h"

const char tg_kit::kErrorPrefix[] = "cuda: ";

namespace tg_cuda {
namespace {

// libcuda.so.1 is dlopen()ed and cuInit runs on the first device query, never in initialize;
// cuInit cannot be undone, so the driver stays loaded for the process.
tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("CUDA", "0.1.0");
  TG_KIT_SET_ENTRIES(api, tg_cuda);  // one in-order stream per device: no stream_create
  api.event_record = tg_kit::Entry<&EventRecord>;
  api.device_wait_event = tg_kit::Entry<&DeviceWaitEvent>;
  api.host_alloc = tg_kit::Entry<&HostAlloc>;
  api.host_free = tg_kit::Entry<&HostFree>;
  // "tg.memory_stats", "tg.native_handles" (CUdeviceptr, CUstream: NCCL), then "tg.compile_only" (NVRTC
  // without a GPU).
  api.extensions = tg_kit::MemoryStatsExtension<tg_device, &tg_device::global_mem>(NativeHandlesExtension(CompileOnlyExtension()));
  return api;
}

}  // namespace
}  // namespace tg_cuda

TG_KIT_EXPORT_PLUGIN_API(tg_cuda::MakeApi)
