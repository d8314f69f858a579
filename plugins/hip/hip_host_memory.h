// hip_host_memory.h: host_alloc / host_free, page-locked host memory (hipHostMalloc) that the
// device's copies read and write asynchronously, so the host can stage uploads in it and let them
// run behind its back.
#ifndef TG_PLUGINS_HIP_HIP_HOST_MEMORY_H_
#define TG_PLUGINS_HIP_HIP_HOST_MEMORY_H_

#include <cstdint>

#include "plugins/hip/hip_device.h"

namespace tg_hip {

// hipHostMallocPortable: every device of the plugin may copy from it, not only |device|.
// RESOURCE_EXHAUSTED when no more can be locked.
tg_error* HostAlloc(tg_device* device, uint64_t bytes, void** out_ptr);
// hipHostFree. Does not use |device|: the memory is portable, and the host may free its staging
// blocks after closing the device they were allocated for.
void HostFree(tg_device* device, void* ptr);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_HOST_MEMORY_H_
