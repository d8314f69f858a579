// Internal to //frontend/dist: allreduce and broadcast of tensors with NCCL on their device memory.
// The tensors of one dtype are packed ON THE DEVICE into one fresh flat buffer (a tg
// graph: flatten, cat, realized into an empty tensor), NCCL runs in place on that buffer's native address
// with the device's native stream (or after stream_sync where the device has none), the device is
// synchronized through the plugin within TG_DIST_TIMEOUT, and the slices are assigned back: no host round
// trip. backend_choice.h decides when these run.
#ifndef TG_FRONTEND_DIST_NCCL_COLLECTIVES_H_
#define TG_FRONTEND_DIST_NCCL_COLLECTIVES_H_

#include <vector>

#include "frontend/dist/collectives.h"
#include "frontend/tensor.h"
#include "runtime/device.h"

namespace tg::dist::internal {

// |tensors| (all on |device|, any mix of NCCL-typed dtypes) reduced in place: one ncclAllReduce per
// dtype. kAverage: ncclAvg where the library has it (2.10+), else a sum divided on the device; float
// dtypes only. tg::Error naming the NCCL call and ncclGetErrorString on failure.
void NcclAllreduce(runtime::Device& device, const std::vector<Tensor>& tensors, ReduceOp op);
// A new tensor: |flat| (1-D, on |device|) reduced over the ranks; |flat| itself is unchanged.
Tensor NcclReduced(runtime::Device& device, const Tensor& flat, ReduceOp op);
// Every rank's |tensors| take rank |root|'s values: one ncclBroadcast (of bytes) per dtype.
void NcclBroadcast(runtime::Device& device, const std::vector<Tensor>& tensors, int root);

}  // namespace tg::dist::internal

#endif  // TG_FRONTEND_DIST_NCCL_COLLECTIVES_H_
