// hip_buffer.cc: device memory and stream-ordered copies.
#include "plugins/hip/hip_buffer.h"

#include "plugins/hip/hip_api.h"
#include "plugins/hip/hip_event.h"
#include "plugins/hip/hip_peer.h"

namespace tg_hip {
namespace {

bool InRange(const tg_buffer* b, uint64_t offset, uint64_t bytes) {
  return offset <= b->size && bytes <= b->size - offset;
}

tg_error* CheckCopy(const std::string& what, tg_stream* stream, const tg_buffer* b, const void* host,
                    uint64_t offset, uint64_t bytes) {
  if (stream != nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, what + ": only the default (NULL) stream exists");
  if (b == nullptr || (host == nullptr && bytes > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, what + ": NULL buffer or host pointer");
  }
  if (!InRange(b, offset, bytes)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, what + ": range [" + std::to_string(offset) + ", +" +
                                                   std::to_string(bytes) + ") is outside the " +
                                                   std::to_string(b->size) + "-byte buffer");
  }
  return MakeCurrent(b->device);
}

// Enqueues one copy, then an event for the host or (|done| == NULL) a wait for the stream.
tg_error* Copy(tg_device* d, void* to, const void* from, uint64_t bytes, hipMemcpyKind kind, const char* what,
               tg_event** done) {
  hipError_t r = bytes == 0 ? hipSuccess : Hip().hipMemcpyAsync(to, from, bytes, kind, d->stream);
  if (tg_error* e = CheckHip(r, what)) return e;
  if (done != nullptr) return EmitEvent(d, nullptr, done);
  return CheckHip(Hip().hipStreamSynchronize(d->stream), "hipStreamSynchronize");
}

}  // namespace

tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out) {
  if (device == nullptr || out == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: NULL argument");
  if (bytes == 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: 0 bytes");
  if (flags != 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: flags must be 0 in ABI 1.0");
  if (bytes > device->global_mem) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED, "buffer_alloc: " + std::to_string(bytes) +
                                                     " bytes is more than the device's memory");
  }
  if (tg_error* e = MakeCurrent(device)) return e;
  void* ptr = nullptr;
  if (tg_error* e = CheckHip(Hip().hipMalloc(&ptr, bytes), "buffer_alloc: hipMalloc")) return e;
  *out = new tg_buffer{device, static_cast<char*>(ptr), bytes};
  device->memory.Allocated(bytes);
  device->buffers.Add(*out);
  return nullptr;
}

void BufferFree(tg_buffer* buffer) {
  if (buffer == nullptr) return;
  buffer->device->buffers.Remove(buffer);
  if (MakeCurrent(buffer->device) == nullptr) {
    Hip().hipStreamSynchronize(buffer->device->stream);
    Hip().hipFree(buffer->ptr);
    buffer->device->memory.Freed(buffer->size);
  }
  delete buffer;
}

void ReleaseBuffer(tg_buffer* buffer) {
  Hip().hipFree(buffer->ptr);
  buffer->device->memory.Freed(buffer->size);
  delete buffer;
}

tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_h2d", stream, dst, src, dst_offset, bytes)) return e;
  return Copy(dst->device, dst->ptr + dst_offset, src, bytes, hipMemcpyHostToDevice, "copy_h2d: hipMemcpyAsync", done);
}

tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2h", stream, src, dst, src_offset, bytes)) return e;
  return Copy(src->device, dst, src->ptr + src_offset, bytes, hipMemcpyDeviceToHost, "copy_d2h: hipMemcpyAsync", done);
}

tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2d (src)", stream, src, src, src_offset, bytes)) return e;
  if (tg_error* e = CheckCopy("copy_d2d (dst)", stream, dst, dst, dst_offset, bytes)) return e;
  tg_device* d = dst->device;
  if (src->device != d) {
    if (bytes > 0) {
      tg_error* e = CopyBetweenDevices(d, dst->ptr + dst_offset, src->device, src->ptr + src_offset, bytes);
      if (e != nullptr) return e;
    }
    return done != nullptr ? EmitEvent(d, nullptr, done) : nullptr;
  }
  char *to = dst->ptr + dst_offset, *from = src->ptr + src_offset;
  bool overlap = dst == src && to != from && to < from + bytes && from < to + bytes;
  if (bytes == 0 || to == from || !overlap) {
    uint64_t n = to == from ? 0 : bytes;
    return Copy(d, to, from, n, hipMemcpyDeviceToDevice, "copy_d2d: hipMemcpyAsync", done);
  }
  void* tmp = nullptr;
  if (tg_error* e = CheckHip(Hip().hipMalloc(&tmp, bytes), "copy_d2d: scratch hipMalloc")) return e;
  hipError_t r = Hip().hipMemcpyAsync(tmp, from, bytes, hipMemcpyDeviceToDevice, d->stream);
  if (r == hipSuccess) r = Hip().hipMemcpyAsync(to, tmp, bytes, hipMemcpyDeviceToDevice, d->stream);
  if (r == hipSuccess) r = Hip().hipStreamSynchronize(d->stream);  // before freeing the scratch
  Hip().hipFree(tmp);
  if (tg_error* e = CheckHip(r, "copy_d2d: hipMemcpyAsync")) return e;
  return done != nullptr ? EmitEvent(d, nullptr, done) : nullptr;
}

}  // namespace tg_hip
