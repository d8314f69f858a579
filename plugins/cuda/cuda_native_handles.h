// cuda_native_handles.h: the CUDA plugin's "tg.native_handles" extension (layout in tg_plugin.h):
// buffers as CUdeviceptr ("cuda" memory), devices' CUstream and primary CUcontext, so host code can
// run a native library (NCCL) on tg's buffers in order with tg's launches.
#ifndef TG_PLUGINS_CUDA_CUDA_NATIVE_HANDLES_H_
#define TG_PLUGINS_CUDA_CUDA_NATIVE_HANDLES_H_

#include "plugins/abi/tg_plugin.h"

namespace tg_cuda {

// Static storage; lives forever, as the api table's extensions must. Its |next| is |next|'s chain at
// the time of the first call (the plugin's other extensions).
const tg_ext* NativeHandlesExtension(const tg_ext* next);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_NATIVE_HANDLES_H_
