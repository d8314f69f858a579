// cuda_error.cc: CUresult -> tg_code mapping.
#include "plugins/cuda/cuda_error.h"

#include "plugins/cuda/cuda_api.h"

namespace tg_cuda {
namespace {
tg_code CodeFor(CUresult r) {
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY: return TG_CODE_RESOURCE_EXHAUSTED;
    case CUDA_ERROR_INVALID_VALUE: return TG_CODE_INVALID_ARGUMENT;
    case CUDA_ERROR_NOT_FOUND: return TG_CODE_NOT_FOUND;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      return TG_CODE_FAILED_PRECONDITION;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
      return TG_CODE_ABORTED;  // sticky: the context is unusable, the host reopens the device
    default:
      return TG_CODE_INTERNAL;
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
