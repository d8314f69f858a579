// cpu_plugin.cc: the CPU plugin's ABI surface: the function table and tg_plugin_get_api.
// Each entry point is a thin wrapper that guards against exceptions and forwards to one concept.
#include <atomic>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/cpu_buffer.h"
#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/cpu_error.h"
#include "plugins/cpu/cpu_event.h"
#include "plugins/cpu/cpu_launch.h"
#include "plugins/cpu/cpu_native_handles.h"
#include "plugins/cpu/cpu_program.h"

namespace tg_cpu {
namespace {

std::atomic<int> g_init_count{0};  // initialize is reference counted (ABI); nothing to set up

tg_code ErrorCode(const tg_error* e) { return e != nullptr ? e->code : TG_CODE_OK; }
const char* ErrorMessage(const tg_error* e) { return e != nullptr ? e->message.c_str() : ""; }

tg_error* Initialize(const tg_host_services*) {
  // Cheap by design: the thread pool, compiler lookup and cpuinfo parsing wait for first use.
  g_init_count.fetch_add(1);
  return nullptr;
}
void Shutdown() { g_init_count.fetch_sub(1); }

tg_error* DeviceCount(uint32_t* out) {
  return Guard([&]() -> tg_error* {
    if (out == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_count: NULL out_count");
    *out = tg_cpu::DeviceCount();
    return nullptr;
  });
}

// The table below needs plain function pointers; these lambdas-in-functions keep every call
// inside Guard so no exception reaches the host.
tg_error* DeviceOpen(uint32_t o, tg_device** d) { return Guard([&] { return OpenDevice(o, d); }); }
void DeviceClose(tg_device* d) { GuardVoid([&] { CloseDevice(d); }); }
tg_error* DeviceProps(tg_device* d, tg_device_props* p) {
  return Guard([&] { return GetDeviceProps(d, p); });
}
tg_error* Alloc(tg_device* d, uint64_t n, uint32_t f, tg_buffer** b) {
  return Guard([&] { return BufferAlloc(d, n, f, b); });
}
void Free(tg_buffer* b) { GuardVoid([&] { BufferFree(b); }); }
tg_error* H2D(tg_stream* s, tg_buffer* b, uint64_t o, const void* p, uint64_t n, tg_event** e) {
  return Guard([&] { return CopyH2D(s, b, o, p, n, e); });
}
tg_error* D2H(tg_stream* s, void* p, tg_buffer* b, uint64_t o, uint64_t n, tg_event** e) {
  return Guard([&] { return CopyD2H(s, p, b, o, n, e); });
}
tg_error* D2D(tg_stream* s, tg_buffer* d, uint64_t dof, tg_buffer* b, uint64_t sof, uint64_t n,
              tg_event** e) {
  return Guard([&] { return CopyD2D(s, d, dof, b, sof, n, e); });
}
tg_error* Compile(const tg_compile_args* a, tg_program** p) {
  return Guard([&] { return ProgramCompile(a, p); });
}
tg_error* Load(tg_device* d, const char* f, const void* b, uint64_t n, const char* e, tg_program** p) {
  return Guard([&] { return ProgramLoad(d, f, b, n, e, p); });
}
tg_error* Binary(tg_program* p, const char** f, const void** b, uint64_t* n) {
  return Guard([&] { return ProgramBinary(p, f, b, n); });
}
void Destroy(tg_program* p) { GuardVoid([&] { ProgramDestroy(p); }); }
tg_error* DoLaunch(const tg_launch_args* a) { return Guard([&] { return Launch(a); }); }
tg_error* Sync(tg_device* d, tg_stream* s) { return Guard([&] { return StreamSync(d, s); }); }
tg_error* Wait(tg_event* e, uint64_t t) { return Guard([&] { return EventWait(e, t); }); }
tg_error* Query(tg_event* e, uint32_t* d) { return Guard([&] { return EventQuery(e, d); }); }
void EvDestroy(tg_event* e) { GuardVoid([&] { EventDestroy(e); }); }
tg_error* Timing(tg_event* e, uint64_t* s, uint64_t* n) {
  return Guard([&] { return EventTiming(e, s, n); });
}

tg_plugin_api MakeApi() {
  tg_plugin_api api{};
  api.struct_size = sizeof(tg_plugin_api);
  api.abi_major = TG_ABI_MAJOR;
  api.abi_minor = TG_ABI_MINOR;
  api.plugin_name = "CPU";
  api.plugin_version = "0.1.0";
  api.error_code = ErrorCode;
  api.error_message = ErrorMessage;
  api.error_destroy = DestroyError;
  api.initialize = Initialize;
  api.shutdown = Shutdown;
  api.device_count = DeviceCount;
  api.unavailable_reason = nullptr;  // the CPU is always there
  api.device_open = DeviceOpen;
  api.device_close = DeviceClose;
  api.device_props = DeviceProps;
  api.buffer_alloc = Alloc;
  api.buffer_free = Free;
  api.copy_h2d = H2D;
  api.copy_d2h = D2H;
  api.copy_d2d = D2D;
  api.program_compile = Compile;
  api.program_load = Load;
  api.program_binary = Binary;
  api.program_destroy = Destroy;
  api.launch = DoLaunch;
  api.stream_create = nullptr;  // one in-order default stream; the host falls back to it
  api.stream_destroy = nullptr;
  api.stream_wait_event = nullptr;
  api.stream_sync = Sync;
  api.event_wait = Wait;
  api.event_query = Query;
  api.event_destroy = EvDestroy;
  api.event_timing_ns = Timing;
  api.extensions = NativeHandlesExtension();  // "tg.native_handles": host pointers
  return api;
}

const tg_plugin_api kApi = MakeApi();

}  // namespace
}  // namespace tg_cpu

extern "C" TG_EXPORT const tg_plugin_api* tg_plugin_get_api(uint32_t host_abi_major,
                                                            uint32_t /*host_abi_minor*/) {
  return host_abi_major == TG_ABI_MAJOR ? &tg_cpu::kApi : nullptr;
}
