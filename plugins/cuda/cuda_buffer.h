// cuda_buffer.h: the CUDA plugin's buffers (cuMemAlloc) and copies on the device's stream, so
// they are ordered with launches.
#ifndef TG_PLUGINS_CUDA_CUDA_BUFFER_H_
#define TG_PLUGINS_CUDA_CUDA_BUFFER_H_

#include <cstdint>

#include "plugins/cuda/cuda_device.h"

struct tg_buffer {
  tg_device* device;         // not owned; outlives the buffer
  tg_cuda::CUdeviceptr ptr;  // owned: cuMemFree in BufferFree
  uint64_t size;
};

namespace tg_cuda {

tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out);
// Waits for the device's stream first (pending kernels may still use the memory), then frees.
void BufferFree(tg_buffer* buffer);
// BufferFree for a buffer its device no longer lists (device_close frees what the host left).
void ReleaseBuffer(tg_buffer* buffer);
// |stream| must be NULL. |done| == NULL: returns once host memory was read / written.
tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done);
tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done);
// On |dst|'s stream. Within one device cuMemcpyDtoDAsync; overlap within one buffer goes through a
// scratch allocation, since the driver's copy is memcpy, not memmove. Between devices
// CopyBetweenDevices (cuda_peer.h): ordered after the source's queued work by events, not waits.

// host_alloc / host_free: page-locked, portable (every context may copy from it) host memory.
tg_error* HostAlloc(tg_device* device, uint64_t bytes, void** out_ptr);
void HostFree(tg_device* device, void* ptr);
tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_BUFFER_H_
