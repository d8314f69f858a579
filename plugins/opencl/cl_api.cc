// cl_api.cc: dlopen of the OpenCL ICD loader and dlsym of each entry point.
#include "plugins/opencl/cl_api.h"

#include <dlfcn.h>

#include <mutex>

namespace tg_ocl {
namespace {

struct Loaded {
  ClApi api;
  std::string why;  // empty on success
};

Loaded LoadOnce() {
  Loaded out;
  // The ICD loader's soname; the unversioned name only exists with the -dev package.
  void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    out.why = e != nullptr ? e : "libOpenCL.so.1: dlopen failed";
    return out;
  }
#define TG_CL_SYM(name)                                                                  \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(lib, #name));            \
  if (out.api.name == nullptr && out.why.empty()) out.why = "libOpenCL.so.1 lacks " #name;
  TG_CL_FUNCTIONS(TG_CL_SYM)
#undef TG_CL_SYM
  return out;
}

const Loaded& Get() {
  static const Loaded loaded = LoadOnce();  // thread-safe static init
  return loaded;
}

}  // namespace

const ClApi* LoadClApi(std::string* why) {
  const Loaded& l = Get();
  if (!l.why.empty()) {
    if (why != nullptr) *why = l.why;
    return nullptr;
  }
  return &l.api;
}

const ClApi& Cl() { return Get().api; }

}  // namespace tg_ocl
