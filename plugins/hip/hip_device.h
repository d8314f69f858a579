// hip_device.h: the HIP plugin's device: one HIP device ordinal and one non-blocking stream (the
// ABI's default stream). Also runtime discovery (hipInit) for the plugin.
#ifndef TG_PLUGINS_HIP_HIP_DEVICE_H_
#define TG_PLUGINS_HIP_HIP_DEVICE_H_

#include <cstdint>
#include <string>

#include "plugins/hip/hip_error.h"
#include "plugins/kit/owned_set.h"
#include "plugins/kit/memory_stats.h"

struct tg_device {
  uint32_t ordinal = 0;
  hipStream_t stream = nullptr;  // owned: in order, hipStreamNonBlocking
  // Strings handed out through device_props; they live as long as the device (ABI rule).
  std::string name, arch, fingerprint;
  const char* dialects[1] = {"hip-c"};
  const char* formats[1] = {"hsaco"};
  uint64_t global_mem = 0, local_mem = 0;
  uint32_t max_group[3] = {1, 1, 1};
  uint32_t max_threads = 1, compute_units = 1, caps = 0;
  tg_kit::MemoryCounter memory;  // what its buffers hold ("tg.memory_stats")
  // Buffers and programs not yet freed by the host: CloseDevice frees them.
  tg_kit::OwnedSet<tg_buffer> buffers;
  tg_kit::OwnedSet<tg_program> programs;
};

namespace tg_hip {

// Runs hipInit(0) and hipGetDeviceCount once per process. |*reason| is why the count is zero.
uint32_t DeviceCount(const char** reason);

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device);
// Synchronizes the stream, frees the buffers and programs the host left open, destroys the stream.
void CloseDevice(tg_device* device);
tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout);
tg_error* StreamSync(tg_device* device, tg_stream* stream);  // |stream| must be NULL

// hipSetDevice(ordinal) on the calling thread: every entry point that touches the runtime calls
// this first, because the host may call from any thread.
tg_error* MakeCurrent(const tg_device* device);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_DEVICE_H_
