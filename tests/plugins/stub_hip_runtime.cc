// stub_hip_runtime.cc: a stand-in libamdhip64 with one fake device and no way to run anything, for
// testing the HIP plugin's runtime search, device properties and compiles on machines without an
// AMD GPU. Built once per ROCm layout it imitates, as libamdhip64.so.<TG_STUB_ROCM_MAJOR>; ROCm 5's
// also carries the hiprtc stub, as the real one carries hiprtc. It has every entry point the plugin
// resolves (plugins/hip/hip_api.h), defined against the same HIP headers so the types cannot drift.
// Discovery, device selection and streams succeed with fixed values; the device's gcnArchName is
// $STUB_HIP_ARCH when set (read at each hipGetDeviceProperties), else "gfx90a:sramecc+:xnack-".
// Modules load from the stub hiprtc's code objects only, and their functions are the names their
// source declares; launches, memory and events answer hipErrorNotSupported.
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>

struct ihipModule_t {
  std::string image;
};

namespace {
int g_stream;  // its address is the one stream handed out
hipStream_t Stream() { return reinterpret_cast<hipStream_t>(&g_stream); }
int g_function;  // its address is every function handed out
constexpr char kStubCodeObject[] = "\x7f" "ELF stub hiprtc ";  // how stub_hiprtc.cc's code objects start
}  // namespace

extern "C" {

hipError_t hipInit(unsigned int flags) { return flags == 0 ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
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
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorNotFound: return "hipErrorNotFound";
    default: return "hipErrorUnknown";
  }
}
const char* hipGetErrorString(hipError_t e) {
  return e == hipErrorNotSupported ? "the stub HIP runtime runs nothing" : hipGetErrorName(e);
}

hipError_t hipSetDevice(int device) { return device == 0 ? hipSuccess : hipErrorInvalidDevice; }
hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int device) {
  if (device != 0) return hipErrorInvalidDevice;
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

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  (void)flags;
  *stream = Stream();
  return hipSuccess;
}
hipError_t hipStreamDestroy(hipStream_t stream) { return stream == Stream() ? hipSuccess : hipErrorInvalidValue; }
hipError_t hipStreamSynchronize(hipStream_t stream) {
  return stream == Stream() ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipMalloc(void** ptr, size_t size) {
  (void)ptr, (void)size;
  return hipErrorNotSupported;
}
hipError_t hipFree(void* ptr) {
  (void)ptr;
  return hipErrorNotSupported;
}
hipError_t hipMemcpyAsync(void* dst, const void* src, size_t n, hipMemcpyKind kind, hipStream_t stream) {
  (void)dst, (void)src, (void)n, (void)kind, (void)stream;
  return hipErrorNotSupported;
}
hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  const char* text = static_cast<const char*>(image);
  if (std::strncmp(text, kStubCodeObject, sizeof kStubCodeObject - 1) != 0) return hipErrorInvalidImage;
  *module = new ihipModule_t{text};  // text: the plugin hands over a std::string's NUL-terminated data
  return hipSuccess;
}
hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  if (module->image.find(" " + std::string(name) + "(") == std::string::npos) return hipErrorNotFound;
  *function = reinterpret_cast<hipFunction_t>(&g_function);
  return hipSuccess;
}
hipError_t hipModuleUnload(hipModule_t module) {
  delete module;
  return hipSuccess;
}
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                 unsigned int by, unsigned int bz, unsigned int shared, hipStream_t stream,
                                 void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream;
  (void)params, (void)extra;
  return hipErrorNotSupported;
}
hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  (void)event, (void)flags;
  return hipErrorNotSupported;
}
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  (void)event, (void)stream;
  return hipErrorNotSupported;
}
hipError_t hipEventQuery(hipEvent_t event) {
  (void)event;
  return hipErrorNotSupported;
}
hipError_t hipEventSynchronize(hipEvent_t event) {
  (void)event;
  return hipErrorNotSupported;
}
hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  (void)ms, (void)start, (void)stop;
  return hipErrorNotSupported;
}
hipError_t hipEventDestroy(hipEvent_t event) {
  (void)event;
  return hipErrorNotSupported;
}

}  // extern "C"
