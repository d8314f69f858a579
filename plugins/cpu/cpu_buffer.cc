// cpu_buffer.cc: aligned host allocations and Highway-vectorized copies, ordered on the device's queue.
#include "plugins/cpu/cpu_buffer.h"

#include <stdlib.h>
#include <string.h>

#include <memory>
#include <string>

#include "plugins/cpu/cpu_event.h"
#include "plugins/cpu/device_queue.h"
#include "plugins/cpu/host_memory.h"
#include "plugins/cpu/queue_events.h"
#include "plugins/cpu/simd.h"

namespace tg_cpu {
namespace {

// Overflow-safe "offset + bytes <= size".
bool InRange(const tg_buffer* b, uint64_t offset, uint64_t bytes) {
  return offset <= b->size && bytes <= b->size - offset;
}

tg_error* CheckCopy(const char* what, tg_stream* stream, const tg_buffer* b, const void* host,
                    uint64_t offset, uint64_t bytes) {
  std::string w = what;
  if (stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, w + ": the CPU plugin has only the default (NULL) stream");
  }
  if (b == nullptr || (host == nullptr && bytes > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, w + ": NULL buffer or host pointer");
  }
  if (!InRange(b, offset, bytes)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT,
                     w + ": range [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                         ") is outside the " + std::to_string(b->size) + "-byte buffer");
  }
  return nullptr;
}

// TG_CPU_POISON=1 fills new buffers with 0xCD so a kernel that reads memory nobody wrote shows
// up as garbage in tests instead of as the zeros a fresh page happens to hold.
bool PoisonNewBuffers() {
  static const bool poison = [] {
    const char* v = getenv("TG_CPU_POISON");
    return v != nullptr && *v != '\0' && strcmp(v, "0") != 0;
  }();
  return poison;
}

void FreeNow(tg_buffer* buffer) {
  buffer->device->memory.Freed(buffer->size);
  FreeHostMemory(buffer->data);
  delete buffer;
}

// A copy on |device|'s stream. Without an event it is synchronous (ABI: host memory has been read
// or written on return), after the work already queued on the device. With one it is queued like a
// launch and completes |*done|; the host keeps its memory alive until then.
template <typename CopyFn>
void Copy(tg_device* device, tg_event** done, CopyFn copy) {
  DeviceQueue& queue = device->queue;
  if (done == nullptr || !queue.queues()) {
    queue.Drain();
    uint64_t start = MonotonicNs();
    copy();
    EmitEvent(done, start, MonotonicNs(), false);
    return;
  }
  std::shared_ptr<EventState> event = NewEvent(done, false);
  queue.Submit([copy, event] {
    uint64_t start = MonotonicNs();
    copy();
    CompleteEvent(event.get(), start, MonotonicNs());
  });
}

}  // namespace

tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out) {
  if (device == nullptr || out == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: NULL device or out_buffer");
  }
  if (bytes == 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: 0 bytes");
  if (flags != 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: flags must be 0 in ABI 1.0");
  if (device->global_mem_bytes != 0 && bytes > device->global_mem_bytes) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "buffer_alloc: " + std::to_string(bytes) +
                                                     " bytes is more than the machine's memory");
  }
  uint64_t rounded = (bytes + kBufferAlign - 1) / kBufferAlign * kBufferAlign;
  void* data = AllocateHostMemory(rounded, kBufferAlign);
  if (data == nullptr) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED,
                     "buffer_alloc: out of host memory for " + std::to_string(bytes) + " bytes");
  }
  if (PoisonNewBuffers()) FillBytes(data, 0xCD, rounded);
  *out = new tg_buffer{device, data, bytes};
  device->memory.Allocated(bytes);
  return nullptr;
}

void BufferFree(tg_buffer* buffer) {
  if (buffer == nullptr) return;
  DeviceQueue::Task free_now = [buffer] { FreeNow(buffer); };
  if (buffer->device->queue.DeferIfBusy(free_now)) return;  // queued work may still use it
  FreeNow(buffer);
}

tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_h2d", stream, dst, src, dst_offset, bytes)) return e;
  char* to = static_cast<char*>(dst->data) + dst_offset;
  Copy(dst->device, done, [=] { CopyBytes(to, src, bytes); });
  return nullptr;
}

tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2h", stream, src, dst, src_offset, bytes)) return e;
  const char* from = static_cast<const char*>(src->data) + src_offset;
  Copy(src->device, done, [=] { CopyBytes(dst, from, bytes); });
  return nullptr;
}

tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2d (dst)", stream, dst, dst, dst_offset, bytes)) return e;
  if (tg_error* e = CheckCopy("copy_d2d (src)", stream, src, src, src_offset, bytes)) return e;
  char* to = static_cast<char*>(dst->data) + dst_offset;
  const char* from = static_cast<const char*>(src->data) + src_offset;
  auto copy = [=] {
    if (dst == src) {
      memmove(to, from, bytes);  // ranges may overlap within one buffer (ABI)
    } else {
      CopyBytes(to, from, bytes);
    }
  };
  tg_device* to_device = dst->device;
  tg_device* from_device = src->device;
  if (to_device == from_device) {
    Copy(to_device, done, copy);
    return nullptr;
  }
  // Between two devices the copy runs on the destination's queue once the source's queued work is
  // done, and the source's later work (which may overwrite |src| or reuse its memory) waits for the
  // copy: ordered on the queues, so the calling thread waits for neither device.
  std::shared_ptr<EventState> written = RecordOn(from_device->queue);
  auto copied = std::make_shared<EventState>(false);
  to_device->queue.Submit([=] {
    if (written != nullptr) WaitDone(*written);
    uint64_t start = MonotonicNs();
    copy();
    CompleteEvent(copied.get(), start, MonotonicNs());
  });
  from_device->queue.Submit([copied] { WaitDone(*copied); });
  if (done != nullptr) *done = new tg_event{copied};
  return nullptr;
}

}  // namespace tg_cpu
