// cpu_error.h: the CPU plugin's tg_error object and the exception guard around entry points.
// Plugin-internal (hidden by the version script); every ABI entry point in cpu_plugin.cc uses Guard.
#ifndef TG_PLUGINS_CPU_CPU_ERROR_H_
#define TG_PLUGINS_CPU_CPU_ERROR_H_

#include <exception>
#include <new>
#include <string>

#include "plugins/abi/tg_plugin.h"

// The ABI leaves tg_error opaque; this is the CPU plugin's definition. Owned by the host once
// returned, destroyed through DestroyError (error_destroy in the table).
struct tg_error {
  tg_code code;
  std::string message;
};

namespace tg_cpu {

// Returns a new error with |code| and |message| prefixed "cpu: ". Never throws and never returns
// NULL: when memory is gone it returns a static RESOURCE_EXHAUSTED error that DestroyError skips.
tg_error* MakeError(tg_code code, const std::string& message) noexcept;
void DestroyError(tg_error* error) noexcept;

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

// For entry points that return nothing (frees, destroys): an exception is swallowed, because
// there is no channel to report it and crashing the host is worse than a leak.
template <typename F>
void GuardVoid(F&& body) noexcept {
  try {
    body();
  } catch (...) {
  }
}

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_ERROR_H_
