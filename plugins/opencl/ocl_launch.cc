// ocl_launch.cc: kernel arguments, sub-buffers for offsets, and clEnqueueNDRangeKernel.
#include "plugins/opencl/ocl_launch.h"

#include <cstring>
#include <string>
#include <vector>

#include "plugins/opencl/cl_api.h"
#include "plugins/opencl/ocl_buffer.h"
#include "plugins/opencl/ocl_event.h"
#include "plugins/opencl/ocl_program.h"

namespace tg_ocl {
namespace {

// Sub-buffers made for one launch; released after the enqueue (the command keeps them alive).
struct SubBuffers {
  std::vector<cl_mem> mems;
  ~SubBuffers() {
    for (cl_mem m : mems) Cl().clReleaseMemObject(m);
  }
};

// The cl_mem a buffer argument passes: the buffer itself, or a sub-buffer starting at |offset|.
tg_error* BufferArgMem(const tg_program* p, const tg_arg& a, uint32_t i, SubBuffers* subs, cl_mem* out) {
  std::string where = "launch: argument " + std::to_string(i);
  if (a.buffer == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, where + " is a NULL buffer");
  if (a.buffer->device->context != p->device->context) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, where + "'s buffer belongs to another device");
  }
  if (a.offset == 0) return (*out = a.buffer->mem), nullptr;
  if (a.offset >= a.buffer->size || a.offset % p->device->base_align != 0) {
    return MakeError(TG_CODE_INVALID_ARGUMENT,
                     where + ": offset " + std::to_string(a.offset) + " is past the buffer's end or not a " +
                         "multiple of min_offset_align (" + std::to_string(p->device->base_align) + ")");
  }
  cl_buffer_region region{size_t(a.offset), size_t(a.buffer->size - a.offset)};
  cl_int s = CL_SUCCESS;
  cl_mem sub = Cl().clCreateSubBuffer(a.buffer->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                      &region, &s);
  if (tg_error* e = CheckCl(s, where + ": clCreateSubBuffer")) return e;
  subs->mems.push_back(sub);
  *out = sub;
  return nullptr;
}

tg_error* SetArgs(tg_program* p, const tg_launch_args& la, SubBuffers* subs) {
  for (uint32_t i = 0; i < la.num_args; ++i) {
    const tg_arg& a = la.args[i];
    cl_int s = CL_SUCCESS;
    if (a.kind == TG_ARG_BUFFER) {
      cl_mem mem = nullptr;
      if (tg_error* e = BufferArgMem(p, a, i, subs, &mem)) return e;
      s = Cl().clSetKernelArg(p->kernel, i, sizeof mem, &mem);
    } else if (a.kind == TG_ARG_I32) {
      cl_int v = cl_int(int32_t(a.value));
      s = Cl().clSetKernelArg(p->kernel, i, sizeof v, &v);
    } else if (a.kind == TG_ARG_I64) {
      cl_long v = a.value;
      s = Cl().clSetKernelArg(p->kernel, i, sizeof v, &v);
    } else {
      return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: argument " + std::to_string(i) + " has kind " +
                                                     std::to_string(a.kind));
    }
    if (tg_error* e = CheckCl(s, "launch: clSetKernelArg(" + std::to_string(i) + ")")) return e;
  }
  return nullptr;
}

tg_error* CheckGrid(const tg_launch_args& la, size_t global[3], size_t local[3]) {
  for (int d = 0; d < 3; ++d) {
    if (la.num_groups[d] == 0 || la.group_size[d] == 0) {
      return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: num_groups and group_size must be >= 1");
    }
    local[d] = la.group_size[d];
    global[d] = size_t(la.num_groups[d]) * size_t(la.group_size[d]);  // 32 x 32 bits: no overflow
  }
  return nullptr;
}

}  // namespace

tg_error* Launch(const tg_launch_args* args) {
  if (args == nullptr || !TG_HAS(args, tg_launch_args, out_done) || args->program == nullptr ||
      (args->args == nullptr && args->num_args > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: NULL or short arguments");
  }
  if (args->stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: only the default (NULL) stream exists");
  }
  tg_program* p = args->program;
  size_t global[3], local[3];
  if (tg_error* e = CheckGrid(*args, global, local)) return e;
  SubBuffers subs;
  cl_event ev = nullptr;
  bool want_event = args->out_done != nullptr;
  {
    std::lock_guard<std::mutex> lock(p->launch_mu);
    if (tg_error* e = SetArgs(p, *args, &subs)) return e;
    cl_int s = Cl().clEnqueueNDRangeKernel(p->device->queue, p->kernel, 3, nullptr, global, local, 0, nullptr,
                                           want_event ? &ev : nullptr);
    if (tg_error* e = CheckCl(s, "launch: clEnqueueNDRangeKernel('" + p->entry + "')")) return e;
  }
  Cl().clFlush(p->device->queue);  // start now; the host may poll the event instead of waiting
  EmitEvent(ev, (args->flags & TG_LAUNCH_PROFILE) != 0, args->out_done);
  return nullptr;
}

}  // namespace tg_ocl
