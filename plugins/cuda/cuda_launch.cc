// cuda_launch.cc: cuLaunchKernel with an event pair for profiled launches.
#include "plugins/cuda/cuda_launch.h"

#include <cstring>
#include <string>
#include <vector>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/cuda_buffer.h"
#include "plugins/cuda/cuda_event.h"
#include "plugins/cuda/cuda_program.h"
#include "plugins/cuda/scoped_context.h"

namespace tg_cuda {
namespace {

// One 8-byte slot per argument; kernelParams points at each slot.
tg_error* PackArgs(const tg_launch_args& la, std::vector<uint64_t>* slots, std::vector<void*>* params) {
  slots->assign(la.num_args, 0);
  params->assign(la.num_args, nullptr);
  for (uint32_t i = 0; i < la.num_args; ++i) {
    const tg_arg& a = la.args[i];
    uint64_t* slot = &(*slots)[i];
    if (a.kind == TG_ARG_BUFFER) {
      if (a.buffer == nullptr || a.offset > a.buffer->size) {
        return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: argument " + std::to_string(i) +
                                                       ": NULL buffer or offset past its end");
      }
      CUdeviceptr p = a.buffer->ptr + a.offset;
      std::memcpy(slot, &p, sizeof p);
    } else if (a.kind == TG_ARG_I32) {
      int32_t v = int32_t(a.value);
      std::memcpy(slot, &v, sizeof v);
    } else if (a.kind == TG_ARG_I64) {
      std::memcpy(slot, &a.value, sizeof a.value);
    } else {
      return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: argument " + std::to_string(i) + " has kind " +
                                                     std::to_string(a.kind));
    }
    (*params)[i] = slot;
  }
  return nullptr;
}

}  // namespace

tg_error* Launch(const tg_launch_args* args) {
  if (args == nullptr || !TG_HAS(args, tg_launch_args, out_done) || args->program == nullptr ||
      (args->args == nullptr && args->num_args > 0)) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: NULL or short arguments");
  }
  if (args->stream != nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: only the default (NULL) stream exists");
  for (int d = 0; d < 3; ++d) {
    if (args->num_groups[d] == 0 || args->group_size[d] == 0) {
      return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: num_groups and group_size must be >= 1");
    }
  }
  tg_program* p = args->program;
  tg_device* dev = p->device;
  // cuLaunchKernel takes no count: it reads as many kernelParams as the kernel has.
  if (args->num_args != p->num_params) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "launch of '" + p->entry + "': " + std::to_string(args->num_args) +
                                                   " arguments, the kernel takes " + std::to_string(p->num_params));
  }
  std::vector<uint64_t> slots;
  std::vector<void*> params;
  if (tg_error* e = PackArgs(*args, &slots, &params)) return e;
  ScopedContext current;
  if (tg_error* e = current.Enter(dev)) return e;
  bool profiled = args->out_done != nullptr && (args->flags & TG_LAUNCH_PROFILE) != 0;
  CUevent start = nullptr;
  if (tg_error* e = RecordStart(dev, profiled, &start)) return e;
  CUresult r = Cu().cuLaunchKernel(p->function, args->num_groups[0], args->num_groups[1], args->num_groups[2],
                                   args->group_size[0], args->group_size[1], args->group_size[2], 0, dev->stream,
                                   params.empty() ? nullptr : params.data(), nullptr);
  if (r != CUDA_SUCCESS) {
    if (start != nullptr) Cu().cuEventDestroy_v2(start);
    return CheckCu(r, "cuLaunchKernel('" + p->entry + "')");
  }
  return EmitEvent(dev, start, args->out_done);
}

}  // namespace tg_cuda
