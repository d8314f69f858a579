// scoped_context.h: a device's context current on the calling thread for the length of one entry
// point, and the caller's own context current again when it returns.
//
// The current context is the thread's, not ours: an application that calls the driver itself
// (cuBLAS, NCCL, its own cuCtxCreate) on the thread that calls this plugin must find its context
// where it left it. Only the tg.native_handles extension's device_bind_thread switches on purpose.
#ifndef TG_PLUGINS_CUDA_SCOPED_CONTEXT_H_
#define TG_PLUGINS_CUDA_SCOPED_CONTEXT_H_

#include "plugins/cuda/cuda_device.h"

namespace tg_cuda {

class ScopedContext {
 public:
  ScopedContext() = default;
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

  // Makes |device|'s context current unless it already is (nothing to switch, nothing to restore).
  // Once per guard. On error nothing changed and nothing will be restored.
  tg_error* Enter(const tg_device* device);
  // Enter for the teardown entry points, which have no error to return: true when it succeeded.
  bool TryEnter(const tg_device* device);

 private:
  bool restore_ = false;
  CUcontext previous_ = nullptr;  // may be NULL: the thread had no context, and will have none
};

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_SCOPED_CONTEXT_H_
