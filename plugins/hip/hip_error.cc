// hip_error.cc: hipError_t -> tg_code mapping.
#include "plugins/hip/hip_error.h"

#include "plugins/hip/hip_api.h"

namespace tg_hip {
namespace {

// The faults after which the device's state is lost: the runtime returns the same error from every
// later call that touches the device, so no retry of one call can mend them and the host must reopen
// the device. These are CUDA's sticky faults of the same numbers; hip_runtime_api.h defines no
// counterpart of CUDA's illegal instruction, misaligned address, invalid address space or invalid PC
// (715 to 718).
bool Sticky(hipError_t e) {
  switch (e) {
    case hipErrorIllegalAddress:  // 700
    case hipErrorLaunchTimeOut:   // 702
    case hipErrorAssert:          // 710: a kernel's assert()
    case hipErrorLaunchFailure:   // 719
      return true;
    default:
      return false;
  }
}

tg_code CodeFor(hipError_t e) {
  if (Sticky(e)) return TG_CODE_ABORTED;
  switch (e) {
    case hipErrorOutOfMemory: return TG_CODE_RESOURCE_EXHAUSTED;
    case hipErrorInvalidValue: return TG_CODE_INVALID_ARGUMENT;
    case hipErrorNotFound: return TG_CODE_NOT_FOUND;
    case hipErrorInvalidImage:
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidKernelFile:
      return TG_CODE_FAILED_PRECONDITION;
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
