// cuda_headers.cc: finding the toolkit's include directory for NVRTC.
#include "plugins/cuda/cuda_headers.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace tg_cuda {
namespace {

std::string FromEnv(const char* name, const char* suffix) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? "" : std::string(v) + suffix;
}

// "/usr/local/cuda/lib64/libnvrtc.so.13" -> "/usr/local/cuda/include".
std::string BesideLibrary(const void* symbol) {
  Dl_info info;
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return path.substr(0, slash) + "/../include";
}

}  // namespace

std::string CudaHeaderDir(const void* nvrtc_symbol) {
  std::vector<std::string> candidates = {FromEnv("TG_CUDA_INCLUDE", ""), BesideLibrary(nvrtc_symbol),
                                         FromEnv("CUDA_HOME", "/include"), FromEnv("CUDA_PATH", "/include"),
                                         "/usr/local/cuda/include", "/usr/include"};
  for (const std::string& dir : candidates)
    if (!dir.empty() && access((dir + "/cuda_fp16.h").c_str(), R_OK) == 0) return dir;
  return "";
}

}  // namespace tg_cuda
