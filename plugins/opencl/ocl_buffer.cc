// ocl_buffer.cc: cl_mem allocation and clEnqueueRead/Write/CopyBuffer.
#include "plugins/opencl/ocl_buffer.h"

#include <string>
#include <vector>

#include "plugins/opencl/cl_api.h"
#include "plugins/opencl/ocl_event.h"

namespace tg_ocl {
namespace {

// Overflow-safe "offset + bytes <= size".
bool InRange(const tg_buffer* b, uint64_t offset, uint64_t bytes) {
  return offset <= b->size && bytes <= b->size - offset;
}

tg_error* CheckCopy(const std::string& what, tg_stream* stream, const tg_buffer* b, const void* host,
                    uint64_t offset, uint64_t bytes) {
  if (stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, what + ": only the default (NULL) stream exists");
  }
  if (b == nullptr || (host == nullptr && bytes > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, what + ": NULL buffer or host pointer");
  }
  if (!InRange(b, offset, bytes)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT,
                     what + ": range [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                         ") is outside the " + std::to_string(b->size) + "-byte buffer");
  }
  return nullptr;
}

// A marker after everything on |queue|: the event for a copy that did no device work.
tg_error* MarkerEvent(cl_command_queue queue, tg_event** done) {
  if (done == nullptr) return nullptr;
  cl_event ev = nullptr;
  if (tg_error* e = CheckCl(Cl().clEnqueueMarkerWithWaitList(queue, 0, nullptr, &ev), "clEnqueueMarkerWithWaitList")) return e;
  EmitEvent(ev, false, done);
  return nullptr;
}

// Copies between buffers of two different contexts through a host vector (blocking).
tg_error* StagedCopy(tg_buffer* dst, uint64_t dst_offset, tg_buffer* src, uint64_t src_offset,
                     uint64_t bytes, tg_event** done) {
  std::vector<char> tmp(bytes);
  if (tg_error* e = CopyD2H(nullptr, tmp.data(), src, src_offset, bytes, nullptr)) return e;
  if (tg_error* e = CopyH2D(nullptr, dst, dst_offset, tmp.data(), bytes, nullptr)) return e;
  return MarkerEvent(dst->device->queue, done);
}

// clEnqueueCopyBuffer refuses overlapping regions of one buffer: copy via a scratch buffer.
tg_error* OverlappingCopy(tg_buffer* b, uint64_t dst_offset, uint64_t src_offset, uint64_t bytes,
                          tg_event** done) {
  cl_int s = CL_SUCCESS;
  cl_mem tmp = Cl().clCreateBuffer(b->device->context, CL_MEM_READ_WRITE, bytes, nullptr, &s);
  if (tg_error* e = CheckCl(s, "copy_d2d: clCreateBuffer (scratch)")) return e;
  cl_command_queue q = b->device->queue;
  s = Cl().clEnqueueCopyBuffer(q, b->mem, tmp, src_offset, 0, bytes, 0, nullptr, nullptr);
  cl_event ev = nullptr;
  if (s == CL_SUCCESS) s = Cl().clEnqueueCopyBuffer(q, tmp, b->mem, 0, dst_offset, bytes, 0, nullptr, &ev);
  Cl().clReleaseMemObject(tmp);  // freed once both copies finish
  if (tg_error* e = CheckCl(s, "copy_d2d: clEnqueueCopyBuffer")) return e;
  Cl().clFlush(q);
  EmitEvent(ev, false, done);
  return nullptr;
}

}  // namespace

tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out) {
  if (device == nullptr || out == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: NULL device or out_buffer");
  }
  if (bytes == 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: 0 bytes");
  if (flags != 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_alloc: flags must be 0 in ABI 1.0");
  if (device->max_alloc != 0 && bytes > device->max_alloc) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED,
                     "buffer_alloc: " + std::to_string(bytes) + " bytes is more than the device's " +
                         "CL_DEVICE_MAX_MEM_ALLOC_SIZE (" + std::to_string(device->max_alloc) + ")");
  }
  cl_int s = CL_SUCCESS;
  cl_mem mem = Cl().clCreateBuffer(device->context, CL_MEM_READ_WRITE, bytes, nullptr, &s);
  if (s != CL_SUCCESS) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED,
                     "buffer_alloc: clCreateBuffer(" + std::to_string(bytes) + "): " + ClStatusName(s));
  }
  *out = new tg_buffer{device, mem, bytes};
  device->memory.Allocated(bytes);
  return nullptr;
}

void BufferFree(tg_buffer* buffer) {
  if (buffer == nullptr) return;
  Cl().clReleaseMemObject(buffer->mem);  // OpenCL keeps it until the commands using it finish
  buffer->device->memory.Freed(buffer->size);
  delete buffer;
}

tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_h2d", stream, dst, src, dst_offset, bytes)) return e;
  if (bytes == 0) return MarkerEvent(dst->device->queue, done);
  cl_event ev = nullptr;
  cl_bool blocking = done == nullptr ? CL_TRUE : CL_FALSE;
  cl_int s = Cl().clEnqueueWriteBuffer(dst->device->queue, dst->mem, blocking, dst_offset, bytes, src, 0,
                                       nullptr, done != nullptr ? &ev : nullptr);
  if (tg_error* e = CheckCl(s, "copy_h2d: clEnqueueWriteBuffer")) return e;
  if (!blocking) Cl().clFlush(dst->device->queue);
  EmitEvent(ev, false, done);
  return nullptr;
}

tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2h", stream, src, dst, src_offset, bytes)) return e;
  if (bytes == 0) return MarkerEvent(src->device->queue, done);
  cl_event ev = nullptr;
  cl_bool blocking = done == nullptr ? CL_TRUE : CL_FALSE;
  cl_int s = Cl().clEnqueueReadBuffer(src->device->queue, src->mem, blocking, src_offset, bytes, dst, 0,
                                      nullptr, done != nullptr ? &ev : nullptr);
  if (tg_error* e = CheckCl(s, "copy_d2h: clEnqueueReadBuffer")) return e;
  if (!blocking) Cl().clFlush(src->device->queue);
  EmitEvent(ev, false, done);
  return nullptr;
}

tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2d (dst)", stream, dst, dst, dst_offset, bytes)) return e;
  if (tg_error* e = CheckCopy("copy_d2d (src)", stream, src, src, src_offset, bytes)) return e;
  if (bytes == 0 || (dst == src && dst_offset == src_offset)) return MarkerEvent(dst->device->queue, done);
  if (dst->device->context != src->device->context) {
    return StagedCopy(dst, dst_offset, src, src_offset, bytes, done);
  }
  bool overlap = dst->mem == src->mem && dst_offset < src_offset + bytes && src_offset < dst_offset + bytes;
  if (overlap) return OverlappingCopy(dst, dst_offset, src_offset, bytes, done);
  cl_event ev = nullptr;
  cl_command_queue q = dst->device->queue;
  cl_int s = Cl().clEnqueueCopyBuffer(q, src->mem, dst->mem, src_offset, dst_offset, bytes, 0, nullptr,
                                      done != nullptr ? &ev : nullptr);
  if (tg_error* e = CheckCl(s, "copy_d2d: clEnqueueCopyBuffer")) return e;
  Cl().clFlush(q);
  EmitEvent(ev, false, done);
  return nullptr;
}

}  // namespace tg_ocl
