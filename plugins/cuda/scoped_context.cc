// scoped_context.cc: cuCtxGetCurrent on entry, cuCtxSetCurrent there and back.
#include "plugins/cuda/scoped_context.h"

#include "plugins/cuda/cuda_api.h"

namespace tg_cuda {

tg_error* ScopedContext::Enter(const tg_device* device) {
  CUcontext current = nullptr;
  if (tg_error* e = CheckCu(Cu().cuCtxGetCurrent(&current), "cuCtxGetCurrent")) return e;
  if (current == device->context) return nullptr;
  if (tg_error* e = CheckCu(Cu().cuCtxSetCurrent(device->context), "cuCtxSetCurrent")) return e;
  previous_ = current;
  restore_ = true;
  return nullptr;
}

bool ScopedContext::TryEnter(const tg_device* device) {
  tg_error* e = Enter(device);
  if (e == nullptr) return true;
  tg_kit::DestroyError(e);
  return false;
}

ScopedContext::~ScopedContext() {
  // Nothing to report to: the call's own result is already decided, and a failure here means the
  // caller's context is gone, which no retry of ours would change.
  if (restore_) Cu().cuCtxSetCurrent(previous_);
}

}  // namespace tg_cuda
