// cuda_peer.h: copies between two of the plugin's GPUs. Each device has its own primary context, so
// such a copy is cuMemcpyPeerAsync between contexts, direct over NVLink/PCIe once peer access is on
// (asked for once per ordered pair where cuDeviceCanAccessPeer allows; otherwise the driver stages
// through host memory), and ordered on the devices' streams with events, never by the host waiting.
#ifndef TG_PLUGINS_CUDA_CUDA_PEER_H_
#define TG_PLUGINS_CUDA_CUDA_PEER_H_

#include <cstdint>

#include "plugins/cuda/cuda_device.h"

namespace tg_cuda {

// Enqueues |bytes| from |from| (memory of |src|) to |to| (memory of |dst|) on |dst|'s stream after
// the work already on |src|'s stream, and makes |src|'s later work wait for the copy (it may overwrite
// or free the source). The caller has checked the ranges and made |dst|'s context current.
tg_error* CopyBetweenDevices(tg_device* dst, CUdeviceptr to, tg_device* src, CUdeviceptr from, uint64_t bytes);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_PEER_H_
