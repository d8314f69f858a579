// hip_api.h: the HIP runtime (libamdhip64) and hiprtc entry points (libhiprtc from ROCm 6, inside
// libamdhip64 before), resolved with dlsym at run time. Nothing is linked: a machine without ROCm
// loads the plugin and gets a reason.
#ifndef TG_PLUGINS_HIP_HIP_API_H_
#define TG_PLUGINS_HIP_HIP_API_H_

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <string>

namespace tg_hip {

// Typed from the 5.x headers. ROCm 6 and 7 keep every one of these entry points with the same
// signature (hipGetDeviceProperties stays the 5.x-layout call for old binaries; new builds get
// hipGetDevicePropertiesR0600 by macro). Filled once, immutable.
struct HipApi {
#define TG_HIP_FN(name) decltype(&::name) name = nullptr;
#define TG_HIP_FUNCTIONS(X)                                                                          \
  X(hipInit) X(hipGetDeviceCount) X(hipGetErrorName) X(hipGetErrorString) X(hipRuntimeGetVersion)    \
  X(hipSetDevice) X(hipGetDeviceProperties) X(hipStreamCreateWithFlags) X(hipStreamDestroy)          \
  X(hipStreamSynchronize) X(hipFree) X(hipMemcpyAsync) X(hipModuleLoadData)             \
  X(hipModuleGetFunction) X(hipModuleUnload) X(hipModuleLaunchKernel) X(hipEventCreateWithFlags)              \
  X(hipEventRecord) X(hipEventQuery) X(hipEventSynchronize) X(hipEventElapsedTime) X(hipEventDestroy)    \
  X(hipStreamWaitEvent) X(hipHostFree) X(hipMemcpyPeerAsync) X(hipDeviceCanAccessPeer)                \
  X(hipDeviceEnablePeerAccess)
#define TG_HIPRTC_FUNCTIONS(X)                                                                       \
  X(hiprtcVersion) X(hiprtcGetErrorString) X(hiprtcCreateProgram) X(hiprtcCompileProgram)            \
  X(hiprtcGetProgramLogSize) X(hiprtcGetProgramLog) X(hiprtcGetCodeSize) X(hiprtcGetCode)            \
  X(hiprtcDestroyProgram)
  TG_HIP_FUNCTIONS(TG_HIP_FN)
  TG_HIPRTC_FUNCTIONS(TG_HIP_FN)
#undef TG_HIP_FN
  // C++ overloads hipMalloc and hipHostMalloc with templates, so decltype cannot name them: spelled out.
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  hipError_t (*hipHostMalloc)(void**, size_t, unsigned int) = nullptr;
  bool has_runtime = false;  // every TG_HIP_FUNCTIONS symbol resolved
  bool has_hiprtc = false;   // every TG_HIPRTC_FUNCTIONS symbol resolved
  std::string runtime_why, hiprtc_why;  // why not, when false: every library tried and what failed
  std::string runtime_library, hiprtc_library;  // the names that were loaded, for messages
};

// Once per process (libraries never closed): the runtime, the first of libamdhip64.so.7, .so.6,
// .so.5 and libamdhip64.so that opens with every entry point; then hiprtc from libhiprtc.so.<the
// runtime's version> or else from the runtime itself. hiprtc is looked for only beside a runtime.
// Never NULL; check has_runtime / has_hiprtc. Thread-safe.
const HipApi& Hip();

// "hipErrorNoDevice (100): no ROCm-capable device is detected".
std::string HipErrorText(hipError_t e);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_API_H_
