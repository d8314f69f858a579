// cuda_launch.h: the CUDA plugin's launch: tg_arg list -> kernelParams, grid = num_groups,
// block = group_size, on the device's stream.
#ifndef TG_PLUGINS_CUDA_CUDA_LAUNCH_H_
#define TG_PLUGINS_CUDA_CUDA_LAUNCH_H_

#include "plugins/cuda/cuda_error.h"

namespace tg_cuda {

// Buffers pass as CUdeviceptr (base + offset), I32 as int, I64 as long long; exactly as many as
// the kernel takes (INVALID_ARGUMENT otherwise). Kernel faults surface at event_wait / stream_sync
// as ABORTED.
tg_error* Launch(const tg_launch_args* args);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_LAUNCH_H_
