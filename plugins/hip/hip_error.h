// hip_error.h: hipError_t checks as tg_errors (the error object itself is the kit's).
// Plugin-internal (hidden by the version script).
#ifndef TG_PLUGINS_HIP_HIP_ERROR_H_
#define TG_PLUGINS_HIP_HIP_ERROR_H_

#include <hip/hip_runtime_api.h>

#include <string>

#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/plugin_error.h"

namespace tg_hip {

// The kit's error object and guards (messages start "hip: ").
using tg_kit::Guard;
using tg_kit::GuardVoid;
using tg_kit::MakeError;

// NULL for hipSuccess, else "<what>: <error name>" with a matching code.
tg_error* CheckHip(hipError_t e, const std::string& what) noexcept;

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_ERROR_H_
