// cpu_plugin.cc: the CPU plugin's ABI surface: the function table and tg_plugin_get_api.
// The kit (plugins/kit/api_table.h) puts every entry point behind the exception guard.
#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/cpu_buffer.h"
#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/cpu_error.h"
#include "plugins/cpu/cpu_event.h"
#include "plugins/cpu/cpu_launch.h"
#include "plugins/cpu/cpu_native_handles.h"
#include "plugins/cpu/cpu_program.h"
#include "plugins/cpu/queue_events.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/memory_stats.h"

const char tg_kit::kErrorPrefix[] = "cpu: ";

namespace tg_cpu {
namespace {

// Cheap by design: the thread pool, compiler lookup and cpuinfo parsing wait for first use. The
// CPU is always there, so DeviceCount gives no unavailable reason.
tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("CPU", "0.1.0");
  TG_KIT_SET_ENTRIES(api, tg_cpu);  // one in-order default stream: no stream_create
  api.event_record = tg_kit::Entry<&EventRecord>;
  api.device_wait_event = tg_kit::Entry<&DeviceWaitEvent>;
  // "tg.memory_stats": what the buffers hold; "tg.native_handles": host pointers
  api.extensions = tg_kit::MemoryStatsExtension<tg_device, &tg_device::global_mem_bytes>(NativeHandlesExtension());
  return api;
}

}  // namespace
}  // namespace tg_cpu

TG_KIT_EXPORT_PLUGIN_API(tg_cpu::MakeApi)
