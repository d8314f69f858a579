// ocl_buffer.h: the OpenCL plugin's buffers (one cl_mem each) and the copies between them and the
// host. Copies go on the device's in-order queue, so they are ordered with launches.
#ifndef TG_PLUGINS_OPENCL_OCL_BUFFER_H_
#define TG_PLUGINS_OPENCL_OCL_BUFFER_H_

#include <CL/cl.h>

#include <cstdint>

#include "plugins/opencl/ocl_device.h"

struct tg_buffer {
  tg_device* device;  // not owned; outlives the buffer
  cl_mem mem;         // owned: one reference, released by BufferFree
  uint64_t size;      // bytes the host asked for
};

namespace tg_ocl {

// INVALID_ARGUMENT for 0 bytes or nonzero flags; RESOURCE_EXHAUSTED past max_alloc or on failure.
tg_error* BufferAlloc(tg_device* device, uint64_t bytes, uint32_t flags, tg_buffer** out);
// Drops our reference; OpenCL frees the memory once queued commands that use it finish.
void BufferFree(tg_buffer* buffer);

// |stream| must be NULL. With |done| == NULL the call blocks until host memory was read/written;
// otherwise it enqueues and returns an event. Ranges outside the buffer are INVALID_ARGUMENT.
tg_error* CopyH2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, const void* src,
                  uint64_t bytes, tg_event** done);
tg_error* CopyD2H(tg_stream* stream, void* dst, tg_buffer* src, uint64_t src_offset,
                  uint64_t bytes, tg_event** done);
// Same context: clEnqueueCopyBuffer (overlap within one buffer goes through a scratch buffer,
// which OpenCL forbids copying in place). Different devices: staged through host memory.
tg_error* CopyD2D(tg_stream* stream, tg_buffer* dst, uint64_t dst_offset, tg_buffer* src,
                  uint64_t src_offset, uint64_t bytes, tg_event** done);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_BUFFER_H_
