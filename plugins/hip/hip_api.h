// hip_api.h: the HIP runtime and hiprtc entry points (both inside libamdhip64.so.5), resolved
// with dlsym at run time. Nothing is linked: a machine without ROCm loads the plugin and gets a reason.
#ifndef TG_PLUGINS_HIP_HIP_API_H_
#define TG_PLUGINS_HIP_HIP_API_H_

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <string>

namespace tg_hip {

// Typed from the 5.x headers (the ABI of the libamdhip64.so.5 we dlopen). Filled once, immutable.
struct HipApi {
#define TG_HIP_FN(name) decltype(&::name) name = nullptr;
#define TG_HIP_FUNCTIONS(X)                                                                          \
  X(hipInit) X(hipGetDeviceCount) X(hipGetErrorName) X(hipGetErrorString) X(hipRuntimeGetVersion)    \
  X(hipSetDevice) X(hipGetDeviceProperties) X(hipStreamCreateWithFlags) X(hipStreamDestroy)          \
  X(hipStreamSynchronize) X(hipFree) X(hipMemcpyAsync) X(hipModuleLoadData)             \
  X(hipModuleGetFunction) X(hipModuleUnload) X(hipModuleLaunchKernel) X(hipEventCreateWithFlags)              \
  X(hipEventRecord) X(hipEventQuery) X(hipEventSynchronize) X(hipEventElapsedTime) X(hipEventDestroy)
#define TG_HIPRTC_FUNCTIONS(X)                                                                       \
  X(hiprtcVersion) X(hiprtcGetErrorString) X(hiprtcCreateProgram) X(hiprtcCompileProgram)            \
  X(hiprtcGetProgramLogSize) X(hiprtcGetProgramLog) X(hiprtcGetCodeSize) X(hiprtcGetCode)            \
  X(hiprtcDestroyProgram)
  TG_HIP_FUNCTIONS(TG_HIP_FN)
  TG_HIPRTC_FUNCTIONS(TG_HIP_FN)
#undef TG_HIP_FN
  // C++ overloads hipMalloc with a template, so decltype cannot name it: spelled out.
  hipError_t (*hipMalloc)(void**, size_t) = nullptr;
  bool has_runtime = false;  // every TG_HIP_FUNCTIONS symbol resolved
  bool has_hiprtc = false;   // every TG_HIPRTC_FUNCTIONS symbol resolved
  std::string runtime_why, hiprtc_why;  // why not, when false
};

// dlopen("libamdhip64.so.5") once (never closed) and resolve both groups. Never NULL; check
// has_runtime / has_hiprtc. Thread-safe.
const HipApi& Hip();

// "hipErrorNoDevice (100): no ROCm-capable device is detected".
std::string HipErrorText(hipError_t e);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_API_H_
