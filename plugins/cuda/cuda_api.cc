// cuda_api.cc: dlopen of libcuda.so.1 and NVRTC, dlsym of each entry point.
#include "plugins/cuda/cuda_api.h"

#include <dlfcn.h>
#include <glob.h>

#include <set>
#include <vector>

#include "plugins/cuda/cuda_headers.h"

namespace tg_cuda {
namespace {

struct Driver {
  CuApi api;
  std::string why;
};
struct Nvrtcs {
  std::vector<NvrtcApi> found;
  std::string why;  // when none was
};

std::string DlError(const std::string& fallback) {
  const char* e = dlerror();
  return e != nullptr ? e : fallback;
}

Driver LoadDriverOnce() {
  Driver out;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    out.why = DlError("libcuda.so.1: dlopen failed") + " (no NVIDIA driver installed)";
    return out;
  }
#define TG_CU_SYM(name)                                                    \
  out.api.name = reinterpret_cast<PFN_##name>(dlsym(lib, #name));                      \
  if (out.api.name == nullptr && out.why.empty()) out.why = "libcuda.so.1 lacks " #name;
  TG_CU_FUNCTIONS(TG_CU_SYM)
  return out;
}

std::vector<std::string> NvrtcCandidates() {
  std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11", "libnvrtc.so"};
  glob_t g{};
  if (glob("/usr/local/cuda/lib64/libnvrtc.so*", 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) names.push_back(g.gl_pathv[i]);
  }
  globfree(&g);
  return names;
}

// |lib|'s NVRTC entry points, or false with |*why|.
bool ResolveNvrtc(void* lib, const std::string& name, NvrtcApi* api, std::string* why) {
#define TG_NV_SYM(fn)                                                      \
  api->fn = reinterpret_cast<PFN_##fn>(dlsym(lib, #fn));                             \
  if (api->fn == nullptr) return *why = name + " lacks " #fn, false;
  TG_NVRTC_FUNCTIONS(TG_NV_SYM)
#undef TG_NV_SYM
  api->library = name;
  api->nvrtcVersion(&api->major, &api->minor);
  api->version = std::to_string(api->major) + "." + std::to_string(api->minor);
  api->headers = CudaHeaderDir(reinterpret_cast<const void*>(api->nvrtcVersion));
  return true;
}

Nvrtcs LoadNvrtcsOnce() {
  Nvrtcs out;
  std::string tried;
  std::set<void*> seen;
  for (const std::string& name : NvrtcCandidates()) {
    std::string why;
    NvrtcApi api;
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      why = DlError(name + ": dlopen failed");
    } else if (!seen.insert(lib).second) {
      continue;  // another name of a library already tried
    } else if (ResolveNvrtc(lib, name, &api, &why)) {
      out.found.push_back(std::move(api));
      continue;
    }
    tried += (tried.empty() ? "" : "; ") + why;
  }
  if (out.found.empty()) out.why = "NVRTC not found (" + tried + ")";
  return out;
}
#undef TG_CU_SYM

const Driver& GetDriver() {
  static const Driver d = LoadDriverOnce();
  return d;
}

}  // namespace

const CuApi* LoadDriver(std::string* why) {
  const Driver& d = GetDriver();
  if (!d.why.empty()) {
    if (why != nullptr) *why = d.why;
    return nullptr;
  }
  return &d.api;
}

const std::vector<NvrtcApi>& NvrtcLibraries(std::string* why) {
  static const Nvrtcs n = LoadNvrtcsOnce();
  if (n.found.empty() && why != nullptr) *why = n.why;
  return n.found;
}

const NvrtcApi* LoadNvrtc(std::string* why) {
  const std::vector<NvrtcApi>& found = NvrtcLibraries(why);
  return found.empty() ? nullptr : &found.front();
}

const CuApi& Cu() { return GetDriver().api; }

std::string CuResultName(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  const CuApi& cu = GetDriver().api;
  if (cu.cuGetErrorName != nullptr && cu.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (cu.cuGetErrorString != nullptr && cu.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  if (name == nullptr && r == CUDA_ERROR_STUB_LIBRARY) name = "CUDA_ERROR_STUB_LIBRARY";
  if (name == nullptr && r == CUDA_ERROR_NO_DEVICE) name = "CUDA_ERROR_NO_DEVICE";
  std::string out = std::string(name != nullptr ? name : "CUresult") + " (" + std::to_string(r) + ")";
  if (text != nullptr) out += ": " + std::string(text);
  return out;
}

}  // namespace tg_cuda
