// hip_host_memory.cc: hipHostMalloc / hipHostFree.
#include "plugins/hip/hip_host_memory.h"

#include "plugins/hip/hip_api.h"

namespace tg_hip {

tg_error* HostAlloc(tg_device* device, uint64_t bytes, void** out_ptr) {
  if (device == nullptr || out_ptr == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "host_alloc: NULL argument");
  if (bytes == 0) return MakeError(TG_CODE_INVALID_ARGUMENT, "host_alloc: 0 bytes");
  if (tg_error* e = MakeCurrent(device)) return e;
  void* ptr = nullptr;
  hipError_t r = Hip().hipHostMalloc(&ptr, bytes, hipHostMallocPortable);
  if (r == hipSuccess && ptr == nullptr) r = hipErrorOutOfMemory;
  if (tg_error* e = CheckHip(r, "host_alloc: hipHostMalloc of " + std::to_string(bytes) + " bytes")) return e;
  *out_ptr = ptr;
  return nullptr;
}

void HostFree(tg_device* device, void* ptr) {
  (void)device;
  if (ptr != nullptr) Hip().hipHostFree(ptr);
}

}  // namespace tg_hip
