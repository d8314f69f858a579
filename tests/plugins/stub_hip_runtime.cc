// stub_hip_runtime.cc: a stand-in libamdhip64 with fake devices that cannot run kernels, for testing
// the HIP plugin's runtime search, device properties, compiles, copies and their ordering, and what
// it frees, on machines without an AMD GPU. Built once per ROCm layout it imitates, as
// libamdhip64.so.<TG_STUB_ROCM_MAJOR>; ROCm 5's also carries the hiprtc stub, as the real one carries
// hiprtc. It has every entry point the plugin resolves (plugins/hip/hip_api.h), defined against the
// same HIP headers so the types cannot drift.
//
// Discovery, device selection and streams succeed with fixed values. Device memory and page-locked
// memory are host memory; copies run at once and events are complete as soon as they are recorded.
// Modules load from the stub hiprtc's code objects only, and their functions are the names their
// source declares; launches answer hipErrorNotSupported. Like the real runtime, the stub holds the
// plugin to the current device: memory and modules belong to the device current when they were
// made, a copy's device memory must belong to its stream's device (or, for hipMemcpyPeerAsync, to the
// devices it names), and an event records only on a stream of the device it was created on.
//
// Knobs, environment variables read at each call:
//   STUB_HIP_DEVICES=2           two devices instead of one (read by hipGetDeviceCount and checks);
//   STUB_HIP_ARCH=gfx942:...     every device's gcnArchName, else "gfx90a:sramecc+:xnack-";
//   STUB_HIP_SYNC_ERROR=700      hipStreamSynchronize and hipEventSynchronize return this error, as
//                                they do after a kernel faulted.
// For tests, found with dlsym on the loaded library:
//   stub_hip_call_log(out, len)  the calls that order work, move bytes or allocate, one name per line,
//                                since the last read (which empties the log);
//   stub_hip_count(name)         how many times the call logged as |name| succeeded in this process.
#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

struct ihipModule_t {
  std::string image;
  int device;
};
struct ihipEvent_t {
  int device;
};

namespace {

constexpr int kMaxDevices = 2;
constexpr char kStubCodeObject[] = "\x7f" "ELF stub hiprtc ";  // how stub_hiprtc.cc's code objects start

int DeviceCount() {
  const char* v = std::getenv("STUB_HIP_DEVICES");
  return v != nullptr && std::strcmp(v, "2") == 0 ? 2 : 1;
}
bool BadDevice(int device) { return device < 0 || device >= DeviceCount(); }

// Each device's one stream handle is the address of g_streams[device].
int g_streams[kMaxDevices];
hipStream_t Stream(int device) { return reinterpret_cast<hipStream_t>(&g_streams[device]); }
int StreamDevice(hipStream_t stream) {
  for (int i = 0; i < DeviceCount(); ++i) {
    if (stream == Stream(i)) return i;
  }
  return -1;
}

int g_function;  // its address is every function handed out

// The device current on the calling thread, as the real runtime keeps it (0 until hipSetDevice).
thread_local int t_current = 0;

struct Allocation {
  size_t bytes;
  int device;
};

// Everything the calls share. Never destroyed: calls may come from static destructors.
struct State {
  std::mutex mu;  // guards everything below
  std::string log;
  std::map<std::string, long> counts;
  std::map<uintptr_t, Allocation> device_memory;  // by start address
  std::set<std::pair<int, int>> peer_access;      // (device, peer) enabled
};
State& S() {
  static State* s = new State;
  return *s;
}

void LogLocked(State& s, const std::string& call) {
  if (s.log.size() < (1 << 20)) s.log += call + "\n";
  ++s.counts[call];
}
void Log(const std::string& call) {
  std::lock_guard<std::mutex> lock(S().mu);
  LogLocked(S(), call);
}

// The device whose memory [p, p + bytes) lies in, or -1 when it is not all in one allocation.
int DeviceOfLocked(State& s, const void* p, size_t bytes) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = s.device_memory.upper_bound(a);
  if (it == s.device_memory.begin()) return -1;
  --it;
  if (a + bytes > it->first + it->second.bytes) return -1;
  return it->second.device;
}

// $STUB_HIP_SYNC_ERROR, else hipSuccess.
hipError_t SyncResult() {
  const char* v = std::getenv("STUB_HIP_SYNC_ERROR");
  return v != nullptr ? static_cast<hipError_t>(std::atoi(v)) : hipSuccess;
}

const char* KindName(hipMemcpyKind kind) {
  switch (kind) {
    case hipMemcpyHostToDevice: return "HostToDevice";
    case hipMemcpyDeviceToHost: return "DeviceToHost";
    case hipMemcpyDeviceToDevice: return "DeviceToDevice";
    default: return "other";
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void stub_hip_call_log(char* out, size_t len) {
  std::lock_guard<std::mutex> lock(S().mu);
  std::strncpy(out, S().log.c_str(), len - 1);
  out[len - 1] = '\0';
  S().log.clear();
}
__attribute__((visibility("default"))) long stub_hip_count(const char* call) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().counts.find(call);
  return it != S().counts.end() ? it->second : 0;
}

hipError_t hipInit(unsigned int flags) { return flags == 0 ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipGetDeviceCount(int* count) {
  *count = DeviceCount();
  return hipSuccess;
}
hipError_t hipRuntimeGetVersion(int* version) {
  *version = TG_STUB_ROCM_MAJOR * 10000000 + 2 * 100000;  // HIP_VERSION's encoding: <major>.2.0
  return hipSuccess;
}

const char* hipGetErrorName(hipError_t e) {
  switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
    case hipErrorLaunchOutOfResources: return "hipErrorLaunchOutOfResources";
    case hipErrorLaunchTimeOut: return "hipErrorLaunchTimeOut";
    case hipErrorPeerAccessAlreadyEnabled: return "hipErrorPeerAccessAlreadyEnabled";
    case hipErrorAssert: return "hipErrorAssert";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    default: return "hipErrorUnknown";
  }
}
const char* hipGetErrorString(hipError_t e) {
  return e == hipErrorNotSupported ? "the stub HIP runtime runs nothing" : hipGetErrorName(e);
}

hipError_t hipSetDevice(int device) {
  if (BadDevice(device)) return hipErrorInvalidDevice;
  t_current = device;
  return hipSuccess;
}
hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  if (BadDevice(device)) return hipErrorInvalidDevice;
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "Stub HIP device");
  const char* arch = std::getenv("STUB_HIP_ARCH");
  std::strncpy(p->gcnArchName, arch != nullptr ? arch : "gfx90a:sramecc+:xnack-", sizeof p->gcnArchName - 1);
  p->totalGlobalMem = size_t{1} << 30;
  p->sharedMemPerBlock = 64 * 1024;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
  p->multiProcessorCount = 2;
  return hipSuccess;
}
hipError_t hipDeviceSynchronize(void) {
  Log("hipDeviceSynchronize");
  return SyncResult();
}

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  (void)flags;
  *stream = Stream(t_current);
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t stream) { return StreamDevice(stream) >= 0 ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipStreamSynchronize(hipStream_t stream) {
  if (StreamDevice(stream) < 0) return hipErrorInvalidValue;
  Log("hipStreamSynchronize");
  return SyncResult();
}

// ---- memory: device memory is malloc'd and remembered with the device it belongs to ----

hipError_t hipMalloc(void** ptr, size_t size) {
  void* p = std::malloc(size);
  if (p == nullptr) return hipErrorOutOfMemory;
  std::lock_guard<std::mutex> lock(S().mu);
  S().device_memory[reinterpret_cast<uintptr_t>(p)] = Allocation{size, t_current};
  LogLocked(S(), "hipMalloc");
  *ptr = p;
  return hipSuccess;
}
hipError_t hipFree(void* ptr) {
  if (ptr == nullptr) return hipSuccess;
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().device_memory.erase(reinterpret_cast<uintptr_t>(ptr)) == 0) return hipErrorInvalidValue;
  std::free(ptr);
  LogLocked(S(), "hipFree");
  return hipSuccess;
}
hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  (void)flags;
  *ptr = std::malloc(size);
  if (*ptr == nullptr) return hipErrorOutOfMemory;
  Log("hipHostMalloc");
  return hipSuccess;
}
hipError_t hipHostFree(void* ptr) {
  std::free(ptr);
  Log("hipHostFree");
  return hipSuccess;
}

// The device memory of a copy must belong to the device of the stream it is enqueued on.
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t stream) {
  int device = StreamDevice(stream);
  if (device < 0) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> lock(S().mu);
  bool dst_ok = kind == hipMemcpyDeviceToHost || DeviceOfLocked(S(), dst, n) == device;
  bool src_ok = kind == hipMemcpyHostToDevice || DeviceOfLocked(S(), src, n) == device;
  if (!dst_ok || !src_ok) return hipErrorInvalidValue;
  std::memmove(dst, src, n);
  LogLocked(S(), std::string("hipMemcpyAsync ") + KindName(kind));
  return hipSuccess;
}
hipError_t hipMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                              hipStream_t stream) {
  if (BadDevice(dst_device) || BadDevice(src_device)) return hipErrorInvalidDevice;
  if (StreamDevice(stream) < 0) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> lock(S().mu);
  if (DeviceOfLocked(S(), dst, n) != dst_device || DeviceOfLocked(S(), src, n) != src_device) {
    return hipErrorInvalidValue;
  }
  std::memmove(dst, src, n);
  LogLocked(S(), "hipMemcpyPeerAsync");
  return hipSuccess;
}
hipError_t hipDeviceCanAccessPeer(int* can, int device, int peer) {
  if (BadDevice(device) || BadDevice(peer)) return hipErrorInvalidDevice;
  *can = device != peer ? 1 : 0;
  return hipSuccess;
}
// For the current device, as the real one: a second call for one pair is an error.
hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags) {
  if (flags != 0) return hipErrorInvalidValue;
  if (BadDevice(peer) || peer == t_current) return hipErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(S().mu);
  if (!S().peer_access.insert({t_current, peer}).second) return hipErrorPeerAccessAlreadyEnabled;
  LogLocked(S(), "hipDeviceEnablePeerAccess");
  return hipSuccess;
}

// ---- modules ----

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  const char* text = static_cast<const char*>(image);
  if (std::strncmp(text, kStubCodeObject, sizeof kStubCodeObject - 1) != 0) return hipErrorInvalidImage;
  *module = new ihipModule_t{text, t_current};  // text: the plugin hands over a std::string's NUL-terminated data
  Log("hipModuleLoadData");
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  if (module->image.find(" " + std::string(name) + "(") == std::string::npos) return hipErrorNotFound;
  *function = reinterpret_cast<hipFunction_t>(&g_function);
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t module) {
  if (module == nullptr) return hipErrorInvalidHandle;
  delete module;
  Log("hipModuleUnload");
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                 unsigned int by, unsigned int bz, unsigned int shared, hipStream_t stream,
                                 void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream;
  (void)params, (void)extra;
  return hipErrorNotSupported;
}

// ---- events: the work before them has always completed ----

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  (void)flags;
  *event = new ihipEvent_t{t_current};
  return hipSuccess;
}
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  if (event == nullptr || StreamDevice(stream) != event->device) return hipErrorInvalidHandle;
  Log("hipEventRecord");
  return hipSuccess;
}
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  if (event == nullptr || StreamDevice(stream) < 0 || flags != 0) return hipErrorInvalidValue;
  Log("hipStreamWaitEvent");
  return hipSuccess;
}
hipError_t hipEventQuery(hipEvent_t event) { return event != nullptr ? hipSuccess : hipErrorInvalidHandle; }
hipError_t hipEventSynchronize(hipEvent_t event) {
  if (event == nullptr) return hipErrorInvalidHandle;
  Log("hipEventSynchronize");
  return SyncResult();
}
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (start == nullptr || stop == nullptr) return hipErrorInvalidHandle;
  *ms = 0.f;
  return hipSuccess;
}
hipError_t hipEventDestroy(hipEvent_t event) {
  if (event == nullptr) return hipErrorInvalidHandle;
  delete event;
  return hipSuccess;
}

}  // extern "C"
