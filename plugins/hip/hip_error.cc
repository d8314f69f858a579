// hip_error.cc: hipError_t -> tg_code mapping.
#include "plugins/hip/hip_error.h"

#include "plugins/hip/hip_api.h"

namespace tg_hip {
namespace {
tg_code CodeFor(hipError_t e) {
  switch (e) {
    case hipErrorOutOfMemory: return TG_CODE_RESOURCE_EXHAUSTED;
    case hipErrorInvalidValue: return TG_CODE_INVALID_ARGUMENT;
    case hipErrorNotFound: return TG_CODE_NOT_FOUND;
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
      return TG_CODE_FAILED_PRECONDITION;
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
      return TG_CODE_ABORTED;
    default:
      return TG_CODE_INTERNAL;
  }
}
}  // namespace

tg_error* CheckHip(hipError_t e, const std::string& what) noexcept {
  if (e == hipSuccess) return nullptr;
  try {
    return MakeError(CodeFor(e), what + ": " + HipErrorText(e));
  } catch (...) {
    return MakeError(TG_CODE_INTERNAL, "HIP call failed");
  }
}

}  // namespace tg_hip
