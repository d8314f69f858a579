// cuda_error.cc: CUresult -> tg_code mapping.
#include "plugins/cuda/cuda_error.h"

#include "plugins/cuda/cuda_api.h"

namespace tg_cuda {
namespace {

// The errors cuda.h documents as leaving the process in an inconsistent state (every later call in
// the context returns the same error; only a new process recovers), and the device-side assert,
// after which "the context cannot be used anymore". The host must not treat these as a failure of
// one call that a retry could mend.
bool Sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return true;
    default:
      return false;
  }
}

tg_code CodeFor(CUresult r) {
  if (Sticky(r)) return TG_CODE_ABORTED;  // the context is unusable: the host reopens the device
  switch (r) {
    // Too many threads for the kernel's registers is a launch that did not fit, not a fault.
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return TG_CODE_RESOURCE_EXHAUSTED;
    case CUDA_ERROR_INVALID_VALUE: return TG_CODE_INVALID_ARGUMENT;
    case CUDA_ERROR_NOT_FOUND: return TG_CODE_NOT_FOUND;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    // The device's context was destroyed or reset under the plugin (by the application itself):
    // nothing in this call can succeed until the device is opened again.
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return TG_CODE_FAILED_PRECONDITION;
    // The driver is shutting down or the device is taken (exclusive-process mode) or gone.
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NO_DEVICE:
      return TG_CODE_UNAVAILABLE;
    default:
      return TG_CODE_INTERNAL;  // CUDA_ERROR_UNKNOWN included: nothing says what it left behind
  }
}

}  // namespace

tg_error* CheckCu(CUresult r, const std::string& what) noexcept {
  if (r == CUDA_SUCCESS) return nullptr;
  try {
    return MakeError(CodeFor(r), what + ": " + CuResultName(r));
  } catch (...) {
    return MakeError(TG_CODE_INTERNAL, "CUDA call failed");
  }
}

}  // namespace tg_cuda
