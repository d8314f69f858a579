// hip_buffer.h: the HIP plugin's buffers (hipMalloc) and copies on the device's stream, so they
// are ordered with launches.
#ifndef TG_PLUGINS_HIP_HIP_BUFFER_H_
#define TG_PLUGINS_HIP_HIP_BUFFER_H_

#include <cstdint>

#include "plugins/hip/hip_device.h"

struct tg_buffer {
  tg_device* device;  // not owned; outlives the buffer
  char* ptr;          // device memory, owned: hipFree in BufferFree
  uint64_t size;
};

namespace tg_hip {

// The device remembers the buffer until BufferFree, so that CloseDevice can free what is left.
tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out);
// Waits for the device's stream first (pending kernels may still use the memory), then frees.
void BufferFree(tg_buffer* buffer);
// hipFree and delete, for CloseDevice once the device's stream has drained; the caller has taken
// |buffer| out of the device's set.
void ReleaseBuffer(tg_buffer* buffer);
// |stream| must be NULL. |done| == NULL: returns once host memory was read / written.
tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done);
tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done);
// On |dst|'s stream. Within one device hipMemcpyAsync; overlap within one buffer goes through a
// scratch allocation. Between devices CopyBetweenDevices (hip_peer.h): ordered after the source's
// queued work by events, not by the host waiting.
tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_BUFFER_H_
