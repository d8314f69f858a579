// cuda_error.h: CUresult checks as tg_errors (the error object itself is the kit's).
// Plugin-internal (hidden by the version script).
#ifndef TG_PLUGINS_CUDA_CUDA_ERROR_H_
#define TG_PLUGINS_CUDA_CUDA_ERROR_H_

#include <string>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cuda/cuda_decls.h"
#include "plugins/kit/plugin_error.h"

namespace tg_cuda {

// The kit's error object and guards (messages start "cuda: ").
using tg_kit::Guard;
using tg_kit::GuardVoid;
using tg_kit::MakeError;

// NULL for CUDA_SUCCESS, else "<what>: <CUresult name>" with a matching code: the sticky faults
// that leave the context unusable (illegal address, launch failure or timeout, misaligned address,
// illegal instruction, device assert, ...) -> ABORTED; out of memory and launches too large for the
// SM's resources -> RESOURCE_EXHAUSTED; bad images and a destroyed context -> FAILED_PRECONDITION;
// no device or a driver shutting down -> UNAVAILABLE; else INTERNAL.
tg_error* CheckCu(CUresult r, const std::string& what) noexcept;

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_ERROR_H_
