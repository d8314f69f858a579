// cuda_buffer.cc: device memory and stream-ordered copies.
#include "plugins/cuda/cuda_buffer.h"

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/cuda_event.h"
#include "plugins/cuda/cuda_peer.h"
#include "plugins/cuda/scoped_context.h"

namespace tg_cuda {
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
  return nullptr;
}

// After an enqueued copy: an event for the host, or (|done| == NULL) a wait so host memory is
// read or written before returning, as the ABI requires.
tg_error* Finish(tg_device* d, CUresult r, const char* what, tg_event** done) {
  if (tg_error* e = CheckCu(r, what)) return e;
  if (done != nullptr) return EmitEvent(d, nullptr, done);
  return CheckCu(Cu().cuStreamSynchronize(d->stream), "cuStreamSynchronize");
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
  ScopedContext current;
  if (tg_error* e = current.Enter(device)) return e;
  CUdeviceptr ptr = 0;
  if (tg_error* e = CheckCu(Cu().cuMemAlloc_v2(&ptr, bytes), "buffer_alloc: cuMemAlloc")) return e;
  *out = new tg_buffer{device, ptr, bytes};
  device->memory.Allocated(bytes);
  device->buffers.Add(*out);
  return nullptr;
}

void BufferFree(tg_buffer* buffer) {
  if (buffer == nullptr) return;
  buffer->device->buffers.Remove(buffer);
  ReleaseBuffer(buffer);
}

void ReleaseBuffer(tg_buffer* buffer) {
  ScopedContext current;
  if (current.TryEnter(buffer->device)) {
    Cu().cuStreamSynchronize(buffer->device->stream);
    Cu().cuMemFree_v2(buffer->ptr);
    buffer->device->memory.Freed(buffer->size);
  }
  delete buffer;
}

tg_error* HostAlloc(tg_device* device, uint64_t bytes, void** out_ptr) {
  if (device == nullptr || out_ptr == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "host_alloc: NULL argument");
  if (bytes == 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "host_alloc: 0 bytes");
  ScopedContext current;
  if (tg_error* e = current.Enter(device)) return e;
  return CheckCu(Cu().cuMemHostAlloc(out_ptr, bytes, CU_MEMHOSTALLOC_PORTABLE), "host_alloc: cuMemHostAlloc");
}

void HostFree(tg_device* device, void* ptr) {
  if (device == nullptr || ptr == nullptr) return;
  ScopedContext current;
  if (current.TryEnter(device)) Cu().cuMemFreeHost(ptr);
}

tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_h2d", stream, dst, src, dst_offset, bytes)) return e;
  tg_device* d = dst->device;
  ScopedContext current;
  if (tg_error* e = current.Enter(d)) return e;
  CUresult r = bytes == 0 ? CUDA_SUCCESS : Cu().cuMemcpyHtoDAsync_v2(dst->ptr + dst_offset, src, bytes, d->stream);
  return Finish(d, r, "copy_h2d: cuMemcpyHtoDAsync", done);
}

tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2h", stream, src, dst, src_offset, bytes)) return e;
  tg_device* d = src->device;
  ScopedContext current;
  if (tg_error* e = current.Enter(d)) return e;
  CUresult r = bytes == 0 ? CUDA_SUCCESS : Cu().cuMemcpyDtoHAsync_v2(dst, src->ptr + src_offset, bytes, d->stream);
  return Finish(d, r, "copy_d2h: cuMemcpyDtoHAsync", done);
}

tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2d (src)", stream, src, src, src_offset, bytes)) return e;
  if (tg_error* e = CheckCopy("copy_d2d (dst)", stream, dst, dst, dst_offset, bytes)) return e;
  tg_device* d = dst->device;
  ScopedContext current;  // dst's: the copy is queued on its stream
  if (tg_error* e = current.Enter(d)) return e;
  if (src->device != d) {
    if (bytes > 0) {
      tg_error* e = CopyBetweenDevices(d, dst->ptr + dst_offset, src->device, src->ptr + src_offset, bytes);
      if (e != nullptr) return e;
    }
    return done != nullptr ? EmitEvent(d, nullptr, done) : nullptr;
  }
  CUdeviceptr to = dst->ptr + dst_offset, from = src->ptr + src_offset;
  bool overlap = dst == src && to < from + bytes && from < to + bytes && to != from;
  CUresult r = CUDA_SUCCESS;
  if (bytes > 0 && overlap) {
    CUdeviceptr tmp = 0;
    if (tg_error* e = CheckCu(Cu().cuMemAlloc_v2(&tmp, bytes), "copy_d2d: scratch cuMemAlloc")) return e;
    r = Cu().cuMemcpyDtoDAsync_v2(tmp, from, bytes, d->stream);
    if (r == CUDA_SUCCESS) r = Cu().cuMemcpyDtoDAsync_v2(to, tmp, bytes, d->stream);
    if (r == CUDA_SUCCESS) r = Cu().cuStreamSynchronize(d->stream);  // before freeing the scratch
    Cu().cuMemFree_v2(tmp);
  } else if (bytes > 0 && to != from) {
    r = Cu().cuMemcpyDtoDAsync_v2(to, from, bytes, d->stream);
  }
  if (tg_error* e = CheckCu(r, "copy_d2d: cuMemcpyDtoDAsync")) return e;
  return done != nullptr ? EmitEvent(d, nullptr, done) : nullptr;
}

}  // namespace tg_cuda
