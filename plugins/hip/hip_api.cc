// hip_api.cc: dlopen of libamdhip64.so.5 and dlsym of each entry point.
#include "plugins/hip/hip_api.h"

#include <dlfcn.h>

namespace tg_hip {
namespace {

HipApi LoadOnce() {
  HipApi api;
  void* lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    api.runtime_why = std::string(e != nullptr ? e : "libamdhip64.so.5: dlopen failed") +
                      " (install ROCm's HIP runtime, e.g. Debian's libamdhip64-5)";
    api.hiprtc_why = api.runtime_why;
    return api;
  }
#define TG_HIP_SYM(name)                                                                   \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, #name));                      \
  if (api.name == nullptr && WHY.empty()) WHY = "libamdhip64.so.5 lacks " #name;
#define WHY api.runtime_why
  TG_HIP_FUNCTIONS(TG_HIP_SYM)
  api.hipMalloc = reinterpret_cast<decltype(api.hipMalloc)>(dlsym(lib, "hipMalloc"));
  if (api.hipMalloc == nullptr && WHY.empty()) WHY = "libamdhip64.so.5 lacks hipMalloc";
#undef WHY
#define WHY api.hiprtc_why
  TG_HIPRTC_FUNCTIONS(TG_HIP_SYM)
#undef WHY
#undef TG_HIP_SYM
  api.has_runtime = api.runtime_why.empty();
  api.has_hiprtc = api.hiprtc_why.empty();
  return api;
}

}  // namespace

const HipApi& Hip() {
  static const HipApi api = LoadOnce();  // thread-safe static init
  return api;
}

std::string HipErrorText(hipError_t e) {
  const HipApi& h = Hip();
  std::string name = h.hipGetErrorName != nullptr ? h.hipGetErrorName(e) : "hipError";
  std::string out = name + " (" + std::to_string(int(e)) + ")";
  std::string text = h.hipGetErrorString != nullptr ? h.hipGetErrorString(e) : "";
  if (!text.empty() && text != name) out += ": " + text;  // HIP 5.2 often repeats the name
  return out;
}

}  // namespace tg_hip
