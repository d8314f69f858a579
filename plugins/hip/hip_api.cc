// hip_api.cc: finding the HIP runtime and hiprtc with dlopen, and dlsym of each entry point.
#include "plugins/hip/hip_api.h"

#include <dlfcn.h>

namespace tg_hip {
namespace {

// Newest ROCm first, so a machine with several installed uses the newest runtime. ROCm 5 ships
// libamdhip64.so.5 (hiprtc inside); ROCm 6 and 7 ship libamdhip64.so.6 / .so.7 beside a separate
// libhiprtc.so.6 / .so.7. Some installs have only the unversioned development names.
constexpr const char* kRuntimeNames[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                         "libamdhip64.so"};

std::string DlError(const std::string& name) {
  const char* e = dlerror();
  return e != nullptr ? e : name + ": dlopen failed";
}

void Append(std::string* list, const std::string& item) { *list += (list->empty() ? "" : "; ") + item; }

// ".6" for "libamdhip64.so.6", "" for "libamdhip64.so": hiprtc must come from the same ROCm release
// as the runtime whose code objects it makes.
std::string VersionSuffix(const std::string& name) {
  return name.substr(name.find(".so") + 3);
}

// Resolves every runtime entry point from |lib|; false with |*why| naming the first one missing.
bool ResolveRuntime(void* lib, const std::string& name, HipApi* api, std::string* why) {
#define TG_HIP_SYM(fn)                                                  \
  api->fn = reinterpret_cast<decltype(api->fn)>(dlsym(lib, #fn));       \
  if (api->fn == nullptr) return *why = name + " lacks " #fn, false;
  TG_HIP_FUNCTIONS(TG_HIP_SYM)
  TG_HIP_SYM(hipMalloc)
  TG_HIP_SYM(hipHostMalloc)
#undef TG_HIP_SYM
  return true;
}

bool ResolveHiprtc(void* lib, const std::string& name, HipApi* api, std::string* why) {
#define TG_HIPRTC_SYM(fn)                                               \
  api->fn = reinterpret_cast<decltype(api->fn)>(dlsym(lib, #fn));       \
  if (api->fn == nullptr) return *why = name + " lacks " #fn, false;
  TG_HIPRTC_FUNCTIONS(TG_HIPRTC_SYM)
#undef TG_HIPRTC_SYM
  return true;
}

// The first runtime that opens and has every entry point. A library that opened but fell short
// stays loaded: closing a ROCm library whose initializers have run is not known to be safe.
void* FindRuntime(HipApi* api) {
  std::string tried;
  for (const char* name : kRuntimeNames) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    HipApi candidate;  // filled apart, so a library that falls short leaves no pointers behind
    std::string why;
    if (lib == nullptr) {
      Append(&tried, DlError(name));
    } else if (!ResolveRuntime(lib, name, &candidate, &why)) {
      Append(&tried, why);
    } else {
      *api = candidate;
      api->runtime_library = name;
      return lib;
    }
  }
  api->runtime_why = "no HIP runtime (" + tried + "); install ROCm's HIP runtime (ROCm 5, 6 or 7)";
  return nullptr;
}

// hiprtc: the separate libhiprtc of the runtime's version (ROCm 6 and later), else the runtime
// itself (ROCm 5).
void FindHiprtc(void* runtime, HipApi* api) {
  const std::string separate = "libhiprtc.so" + VersionSuffix(api->runtime_library);
  struct Candidate {
    void* lib;
    std::string name;
  };
  std::string tried;
  void* lib = dlopen(separate.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) Append(&tried, DlError(separate));
  for (const Candidate& c : {Candidate{lib, separate}, Candidate{runtime, api->runtime_library}}) {
    if (c.lib == nullptr) continue;
    HipApi candidate = *api;  // filled apart, like the runtime's
    std::string why;
    if (ResolveHiprtc(c.lib, c.name, &candidate, &why)) {
      *api = candidate;
      api->hiprtc_library = c.name;
      return;
    }
    Append(&tried, why);
  }
  api->hiprtc_why = "no hiprtc (" + tried + ")";
}

HipApi LoadOnce() {
  HipApi api;
  void* runtime = FindRuntime(&api);
  if (runtime == nullptr) {
    api.hiprtc_why = api.runtime_why;  // hiprtc is looked for beside a runtime only
    return api;
  }
  FindHiprtc(runtime, &api);
  api.has_runtime = true;
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
