// ocl_platform.cc: platform and device enumeration through the dlopen()ed ICD loader.
#include "plugins/opencl/ocl_platform.h"

#include <stdlib.h>

#include "plugins/kit/process_dir.h"
#include "plugins/opencl/cl_api.h"
#include "plugins/opencl/ocl_error.h"

namespace tg_ocl {
namespace {

// Gives PoCL a kernel cache directory of this process's own (plugins/kit/process_dir.h says why)
// that exists before the first OpenCL call: under `bazel test` HOME is unset, and PoCL silently
// ignores a POCL_CACHE_DIR that does not exist. The user's own POCL_CACHE_DIR wins. PoCL reads the
// variable when the platform loads, and setenv is not thread-safe with other getenv callers, so this
// runs once, inside discovery's static init.
void EnsurePoclCacheDir() {
  const char* chosen = getenv("POCL_CACHE_DIR");
  if (chosen != nullptr && *chosen != '\0') return;
  std::string dir = tg_kit::MakeProcessCacheDir("pocl", nullptr);  // none: PoCL's own default
  if (!dir.empty()) setenv("POCL_CACHE_DIR", dir.c_str(), /*overwrite=*/0);
}

// Appends every device of |platform|; a platform without devices adds a note to |notes|.
void AddPlatformDevices(cl_platform_id platform, Discovery* out, std::string* notes) {
  const ClApi& cl = Cl();
  std::string pname = PlatformString(platform, CL_PLATFORM_NAME);
  cl_uint n = 0;
  cl_int s = cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
  if (s != CL_SUCCESS || n == 0) {
    *notes += "; platform '" + pname + "' has no devices" +
              (s != CL_SUCCESS ? " (clGetDeviceIDs: " + ClStatusName(s) + ")" : "");
    return;
  }
  std::vector<cl_device_id> ids(n);
  if (cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr) != CL_SUCCESS) return;
  std::string pversion = PlatformString(platform, CL_PLATFORM_VERSION);
  for (cl_device_id id : ids) out->devices.push_back({platform, id, pname, pversion});
}

Discovery DiscoverOnce() {
  Discovery out;
  EnsurePoclCacheDir();  // before the loader initializes PoCL
  std::string why;
  const ClApi* cl = LoadClApi(&why);
  if (cl == nullptr) {
    out.reason = why + " (install an OpenCL ICD loader, e.g. Debian's ocl-icd-libopencl1)";
    return out;
  }
  cl_uint n = 0;
  cl_int s = cl->clGetPlatformIDs(0, nullptr, &n);
  if (s != CL_SUCCESS || n == 0) {
    out.reason = "no OpenCL platform (clGetPlatformIDs: " +
                 (s != CL_SUCCESS ? ClStatusName(s) : std::string("0 platforms")) +
                 "): install an ICD such as pocl-opencl-icd or a GPU vendor's driver";
    return out;
  }
  std::vector<cl_platform_id> platforms(n);
  cl->clGetPlatformIDs(n, platforms.data(), nullptr);
  std::string notes;
  for (cl_platform_id p : platforms) AddPlatformDevices(p, &out, &notes);
  if (out.devices.empty()) out.reason = std::to_string(n) + " OpenCL platform(s) but no devices" + notes;
  return out;
}

}  // namespace

const Discovery& Discover() {
  static const Discovery d = DiscoverOnce();  // thread-safe static init
  return d;
}

std::string PlatformString(cl_platform_id platform, cl_platform_info what) {
  size_t n = 0;
  if (Cl().clGetPlatformInfo(platform, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (Cl().clGetPlatformInfo(platform, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t n = 0;
  if (Cl().clGetDeviceInfo(device, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (Cl().clGetDeviceInfo(device, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace tg_ocl
