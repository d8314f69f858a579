#include "frontend/dist/nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace tg::dist::internal {
namespace {

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlerror";
}

// Resolves |name| into |fn|; on failure records why in |missing| and returns false.
template <class Fn>
bool Resolve(void* lib, const char* name, Fn& fn, std::string& missing) {
  dlerror();  // clear a stale message
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (fn != nullptr) return true;
  if (missing.empty()) missing = std::string(name) + " (" + DlError() + ")";
  else missing += std::string(", ") + name;
  return false;
}

}  // namespace

std::string NcclLibrary::ConfiguredPath() {
  const char* path = std::getenv("TG_NCCL_LIBRARY");
  return path != nullptr && *path != '\0' ? path : "libnccl.so.2";
}

const NcclLibrary& NcclLibrary::Process() {
  static const NcclLibrary library = Load(ConfiguredPath());
  return library;
}

NcclLibrary NcclLibrary::Load(const std::string& path) {
  NcclLibrary lib;
  lib.path_ = path;
  // RTLD_LOCAL: NCCL's symbols stay out of the global namespace. Never dlclose()d: NCCL keeps
  // proxy threads and CUDA state alive until exit.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    lib.reason_ = "dlopen(\"" + path + "\") failed: " + DlError();
    return lib;
  }
  std::string missing;
  NcclApi& a = lib.api_;
  bool ok = Resolve(handle, "ncclGetVersion", a.get_version, missing);
  ok &= Resolve(handle, "ncclGetUniqueId", a.get_unique_id, missing);
  ok &= Resolve(handle, "ncclCommInitRank", a.comm_init_rank, missing);
  ok &= Resolve(handle, "ncclAllReduce", a.all_reduce, missing);
  ok &= Resolve(handle, "ncclBroadcast", a.broadcast, missing);
  ok &= Resolve(handle, "ncclCommDestroy", a.comm_destroy, missing);
  ok &= Resolve(handle, "ncclGetErrorString", a.get_error_string, missing);
  if (!ok) {
    lib.reason_ = path + " is not a usable NCCL: it lacks " + missing;
    return lib;
  }
  std::string optional_missing;  // older NCCLs: no abort, so a hung collective cannot be cancelled
  Resolve(handle, "ncclCommAbort", a.comm_abort, optional_missing);
  Resolve(handle, "ncclCommGetAsyncError", a.comm_get_async_error, optional_missing);
  NcclResult rc = a.get_version(&lib.version_);
  if (rc != kNcclSuccess) {
    lib.reason_ = path + ": ncclGetVersion failed: " + lib.ErrorString(rc);
    return lib;
  }
  lib.available_ = true;
  return lib;
}

std::string NcclLibrary::version_string() const {
  // NCCL_VERSION(X, Y, Z) is X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before.
  int major = version_ >= 10000 ? version_ / 10000 : version_ / 1000;
  int minor = version_ >= 10000 ? version_ % 10000 / 100 : version_ % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(version_ % 100);
}

std::string NcclLibrary::ErrorString(NcclResult result) const {
  const char* text = api_.get_error_string != nullptr ? api_.get_error_string(result) : nullptr;
  if (text == nullptr) return "error " + std::to_string(result);
  return std::string(text, strnlen(text, 512)) + " (" + std::to_string(result) + ")";
}

}  // namespace tg::dist::internal
