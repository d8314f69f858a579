// cache_dir.cc: choosing and creating PoCL's cache directory.
#include "plugins/opencl/cache_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace tg_ocl {
namespace {

std::string Env(const char* name) {
  const char* v = getenv(name);
  return v != nullptr ? v : "";
}

std::vector<std::string> CandidateBases() {
  std::vector<std::string> out;
  if (!Env("TG_CACHE_DIR").empty()) out.push_back(Env("TG_CACHE_DIR"));
  if (!Env("XDG_CACHE_HOME").empty()) out.push_back(Env("XDG_CACHE_HOME") + "/tinygrad-cc");
  if (!Env("HOME").empty()) out.push_back(Env("HOME") + "/.cache/tinygrad-cc");
  out.push_back("/tmp/tinygrad-cc-" + std::to_string(getuid()));
  return out;
}

}  // namespace

std::string EnsurePoclCacheDir() {
  if (!Env("POCL_CACHE_DIR").empty()) return Env("POCL_CACHE_DIR");  // the user's choice wins
  for (const std::string& base : CandidateBases()) {
    std::filesystem::path dir = std::filesystem::path(base) / "pocl";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || access(dir.c_str(), W_OK) != 0) continue;
    setenv("POCL_CACHE_DIR", dir.c_str(), /*overwrite=*/0);
    return dir.string();
  }
  return "";
}

}  // namespace tg_ocl
