// cpu_buffer.h: the CPU plugin's buffers: 64-byte aligned host memory, so kernels and Highway get
// full-width aligned vectors (huge pages for large ones: host_memory.h). Copies follow the work queued on the buffer's device (device_queue.h):
// without an event they wait for it and run on the calling thread; with one they are queued.
#ifndef TG_PLUGINS_CPU_CPU_BUFFER_H_
#define TG_PLUGINS_CPU_CPU_BUFFER_H_

#include <cstdint>

#include "plugins/cpu/cpu_device.h"

struct tg_buffer {
  tg_device* device;
  void* data;     // 64-byte aligned, owned (host_memory.h)
  uint64_t size;  // bytes the host asked for
};

namespace tg_cpu {

constexpr uint64_t kBufferAlign = 64;

// INVALID_ARGUMENT for 0 bytes or nonzero flags; RESOURCE_EXHAUSTED when larger than the
// machine's memory or when the allocation fails.
tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out);
// Frees now when the buffer's device has no queued work, else after that work (ABI: safe with
// pending work).
void BufferFree(tg_buffer* buffer);

// Copies; ranges outside the buffer are INVALID_ARGUMENT. |stream| must be NULL. |done| may be NULL.
// copy_d2d between two devices is queued on the destination's queue after the source's queued work,
// and the source's later work waits for it (queue_events.h); the calling thread waits for neither.
tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done);
tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done);
tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_BUFFER_H_
