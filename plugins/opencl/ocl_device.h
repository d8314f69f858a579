// ocl_device.h: the OpenCL plugin's device: one cl_device_id with its own context and in-order,
// profiling-enabled command queue (the ABI's default stream). Opened by device_open.
#ifndef TG_PLUGINS_OPENCL_OCL_DEVICE_H_
#define TG_PLUGINS_OPENCL_OCL_DEVICE_H_

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "plugins/kit/memory_stats.h"
#include "plugins/opencl/ocl_error.h"

struct tg_device {
  uint32_t ordinal = 0;
  cl_device_id id = nullptr;         // a root device: never released
  cl_context context = nullptr;      // owned: released by CloseDevice
  cl_command_queue queue = nullptr;  // owned: in order, CL_QUEUE_PROFILING_ENABLE
  // Strings handed out through device_props; they live as long as the device (ABI rule).
  std::string name, vendor, arch, fingerprint;
  const char* dialects[1] = {"opencl-c"};
  const char* formats[1] = {"opencl-binary"};
  uint64_t global_mem = 0, max_alloc = 0, local_mem = 0;
  uint64_t base_align = 1;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: sub-buffer origins
  uint32_t max_group[3] = {1, 1, 1};
  uint32_t max_threads = 1, vector_width = 1, compute_units = 1, caps = 0;
  tg_kit::MemoryCounter memory;  // what its buffers hold ("tg.memory_stats")
};

namespace tg_ocl {

// NOT_FOUND past Discover()'s device count; UNAVAILABLE when the context or queue cannot be made.
tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device);
// Waits for the queue to drain, then releases it and the context. Buffers and programs the host
// still holds are the host's bug; OpenCL keeps them valid until they are released.
void CloseDevice(tg_device* device);
// Fills |inout| up to its struct_size. Strings live until CloseDevice.
tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout);
// clFinish on the default queue. |stream| must be NULL (no other streams).
tg_error* StreamSync(tg_device* device, tg_stream* stream);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_DEVICE_H_
