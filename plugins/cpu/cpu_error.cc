// cpu_error.cc: tg_error creation and destruction for the CPU plugin.
#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {
namespace {
// Returned when even the error cannot be allocated; never freed.
tg_error kOutOfMemory{TG_CODE_RESOURCE_EXHAUSTED, ""};
}  // namespace

tg_error* MakeError(tg_code code, const std::string& message) noexcept {
  try {
    return new tg_error{code, "cpu: " + message};
  } catch (...) {
    return &kOutOfMemory;
  }
}

void DestroyError(tg_error* error) noexcept {
  if (error != &kOutOfMemory) delete error;
}

}  // namespace tg_cpu
