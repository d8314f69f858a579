// ocl_launch.h: the OpenCL plugin's launch: tg_arg list -> clSetKernelArg, workgroup grid ->
// NDRange (global = num_groups * group_size, local = group_size), on the default queue.
#ifndef TG_PLUGINS_OPENCL_OCL_LAUNCH_H_
#define TG_PLUGINS_OPENCL_OCL_LAUNCH_H_

#include "plugins/opencl/ocl_error.h"

namespace tg_ocl {

// Buffer offsets must be multiples of the device's min_offset_align (they become sub-buffers).
// Errors of the running kernel surface at event_wait / stream_sync.
tg_error* Launch(const tg_launch_args* args);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_LAUNCH_H_
