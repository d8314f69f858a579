// hip_error.h: the HIP plugin's tg_error object, hipError_t checks and the exception guard.
// Plugin-internal (hidden by the version script); every ABI entry point in hip_plugin.cc uses Guard.
#ifndef TG_PLUGINS_HIP_HIP_ERROR_H_
#define TG_PLUGINS_HIP_HIP_ERROR_H_

#include <hip/hip_runtime_api.h>

#include <new>
#include <string>

#include "plugins/abi/tg_plugin.h"

// The ABI leaves tg_error opaque; this is the HIP plugin's definition. Owned by the host once
// returned, destroyed through DestroyError (error_destroy in the table).
struct tg_error {
  tg_code code;
  std::string message;
};

namespace tg_hip {

// A new error with |message| prefixed "hip: ". Never throws, never returns NULL.
tg_error* MakeError(tg_code code, const std::string& message) noexcept;
void DestroyError(tg_error* error) noexcept;
// NULL for hipSuccess, else "<what>: <error name>" with a matching code.
tg_error* CheckHip(hipError_t e, const std::string& what) noexcept;

// Runs |body| and turns any C++ exception into an INTERNAL error.
template <typename F>
tg_error* Guard(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "out of host memory");
  } catch (const std::exception& e) {
    return MakeError(TG_CODE_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return MakeError(TG_CODE_INTERNAL, "internal error: unknown exception");
  }
}

// For entry points that return nothing: exceptions are swallowed (no channel to report them).
template <typename F>
void GuardVoid(F&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_ERROR_H_
