// cuda_device.h: the CUDA plugin's device: one CUdevice, its primary context and one
// non-blocking stream (the ABI's default stream). Also driver discovery (cuInit) for the plugin.
#ifndef TG_PLUGINS_CUDA_CUDA_DEVICE_H_
#define TG_PLUGINS_CUDA_CUDA_DEVICE_H_

#include <cstdint>
#include <string>

#include "plugins/cuda/cuda_error.h"
#include "plugins/kit/memory_stats.h"
#include "plugins/kit/owned_set.h"

namespace tg_cuda {
struct NvrtcApi;
}

struct tg_device {
  uint32_t ordinal = 0;
  tg_cuda::CUdevice device = 0;
  tg_cuda::CUcontext context = nullptr;  // the primary context: retained at open, released at close
  tg_cuda::CUstream stream = nullptr;    // owned: in order, CU_STREAM_NON_BLOCKING
  // Strings handed out through device_props; they live as long as the device (ABI rule).
  std::string name, arch, fingerprint;
  // cuda-c with |nvrtc|, the newest NVRTC its driver can load the output of (nvrtc_choice.h); only
  // ptx where there is none, and |no_nvrtc| says why.
  const tg_cuda::NvrtcApi* nvrtc = nullptr;
  std::string no_nvrtc;
  const char* dialects[2] = {"cuda-c", "ptx"};
  const char* formats[2] = {"cubin", "ptx"};
  uint64_t global_mem = 0, local_mem = 0;
  uint32_t max_group[3] = {1, 1, 1};
  uint32_t max_threads = 1, compute_units = 1, caps = 0;
  tg_kit::MemoryCounter memory;  // what its buffers hold ("tg.memory_stats")
  // What the host has not freed yet, which device_close frees (ABI): a second open of the ordinal or
  // another user of the primary context would otherwise keep that memory and those modules.
  tg_kit::OwnedSet<tg_buffer> buffers;
  tg_kit::OwnedSet<tg_program> programs;
  int cc_major = 0, cc_minor = 0;
};

namespace tg_cuda {

// Loads libcuda.so.1 and runs cuInit(0) and cuDeviceGetCount once per process. |*reason| is why
// the count is zero (e.g. "libcuda.so.1 is a stub (CUDA_ERROR_STUB_LIBRARY 34): no NVIDIA driver").
uint32_t DeviceCount(const char** reason);

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device);
// Synchronizes the stream, destroys it and releases the primary context.
void CloseDevice(tg_device* device);
tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout);
// cuStreamSynchronize on the default stream (|stream| must be NULL); returns the sticky error of
// a faulted kernel (ABORTED).
tg_error* StreamSync(tg_device* device, tg_stream* stream);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_DEVICE_H_
