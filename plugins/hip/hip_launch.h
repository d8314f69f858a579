// hip_launch.h: the HIP plugin's launch: tg_arg list -> kernelParams, grid = num_groups,
// block = group_size, on the device's stream.
#ifndef TG_PLUGINS_HIP_HIP_LAUNCH_H_
#define TG_PLUGINS_HIP_HIP_LAUNCH_H_

#include "plugins/hip/hip_error.h"

namespace tg_hip {

// Buffers pass as a device pointer (base + offset), I32 as int, I64 as long long. Kernel faults
// surface at event_wait / stream_sync as ABORTED.
tg_error* Launch(const tg_launch_args* args);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_LAUNCH_H_
