// ocl_error.h: the OpenCL plugin's tg_error object, OpenCL status names and the exception guard.
// Plugin-internal (hidden by the version script); every ABI entry point in ocl_plugin.cc uses Guard.
#ifndef TG_PLUGINS_OPENCL_OCL_ERROR_H_
#define TG_PLUGINS_OPENCL_OCL_ERROR_H_

#include <new>
#include <string>

#include "plugins/abi/tg_plugin.h"

// The ABI leaves tg_error opaque; this is the OpenCL plugin's definition. Owned by the host once
// returned, destroyed through DestroyError (error_destroy in the table).
struct tg_error {
  tg_code code;
  std::string message;
};

namespace tg_ocl {

// A new error with |message| prefixed "opencl: ". Never throws, never returns NULL (a static
// RESOURCE_EXHAUSTED error, which DestroyError skips, stands in when memory is gone).
tg_error* MakeError(tg_code code, const std::string& message) noexcept;
void DestroyError(tg_error* error) noexcept;

// "CL_OUT_OF_RESOURCES (-5)" for an OpenCL status code.
std::string ClStatusName(int status);
// The tg_code an OpenCL status maps to (memory errors -> RESOURCE_EXHAUSTED, bad values ->
// INVALID_ARGUMENT, the rest -> INTERNAL).
tg_code CodeForStatus(int status);
// NULL when |status| is CL_SUCCESS, else an error "<what>: <status name>".
tg_error* CheckCl(int status, const std::string& what) noexcept;

// Runs |body| (returning tg_error*) and turns any C++ exception into an error, so nothing
// throws across the C boundary (tg_plugin.h: THREADING AND OWNERSHIP).
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

// For entry points that return nothing: an exception is swallowed (no channel to report it, and
// crashing the host is worse than a leak).
template <typename F>
void GuardVoid(F&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_ERROR_H_
