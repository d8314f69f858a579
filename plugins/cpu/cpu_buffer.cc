// cpu_buffer.cc: aligned host allocations and Highway-vectorized copies.
#include "plugins/cpu/cpu_buffer.h"

#include <stdlib.h>
#include <string.h>

#include <string>

#include "plugins/cpu/cpu_event.h"
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
  void* data = aligned_alloc(kBufferAlign, rounded);
  if (data == nullptr) {
    return MakeError(TG_CODE_RESOURCE_EXHAUSTED,
                     "buffer_alloc: out of host memory for " + std::to_string(bytes) + " bytes");
  }
  if (PoisonNewBuffers()) FillBytes(data, 0xCD, rounded);
  *out = new tg_buffer{device, data, bytes};
  return nullptr;
}

void BufferFree(tg_buffer* buffer) {
  if (buffer == nullptr) return;
  free(buffer->data);
  delete buffer;
}

tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_h2d", stream, dst, src, dst_offset, bytes)) return e;
  uint64_t start = MonotonicNs();
  CopyBytes(static_cast<char*>(dst->data) + dst_offset, src, bytes);
  EmitEvent(done, start, MonotonicNs(), false);
  return nullptr;
}

tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2h", stream, src, dst, src_offset, bytes)) return e;
  uint64_t start = MonotonicNs();
  CopyBytes(dst, static_cast<const char*>(src->data) + src_offset, bytes);
  EmitEvent(done, start, MonotonicNs(), false);
  return nullptr;
}

tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done) {
  if (tg_error* e = CheckCopy("copy_d2d (dst)", stream, dst, dst, dst_offset, bytes)) return e;
  if (tg_error* e = CheckCopy("copy_d2d (src)", stream, src, src, src_offset, bytes)) return e;
  uint64_t start = MonotonicNs();
  char* to = static_cast<char*>(dst->data) + dst_offset;
  const char* from = static_cast<const char*>(src->data) + src_offset;
  if (dst == src) {
    memmove(to, from, bytes);  // ranges may overlap within one buffer (ABI)
  } else {
    CopyBytes(to, from, bytes);
  }
  EmitEvent(done, start, MonotonicNs(), false);
  return nullptr;
}

}  // namespace tg_cpu
