// Devices as the front end shows them: what the loaded plugins offer and which one is default.
// A thin view of runtime/device_registry for apps, which see only the front end (docs/architecture.md).
#ifndef TG_FRONTEND_DEVICES_H_
#define TG_FRONTEND_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tg {

struct DeviceDescription {
  std::string name;         // what Tensor::to() and the device arguments accept: "CPU", "OPENCL:1"
  std::string description;  // the hardware: "AMD EPYC 9B45"
  std::string arch;         // "x86_64-avx3_dl", "sm_90"
  uint32_t vector_width = 1;
  uint32_t compute_units = 1;
  uint64_t memory_bytes = 0;
};

// Every device of every plugin that loaded, in plugin priority order.
std::vector<DeviceDescription> available_devices();
// The device tensors go to when none is named (TG_DEVICE, else the best plugin's first device).
std::string default_device();

// How much of a device's memory tensors hold (its plugin's "tg.memory_stats"). Buffers freed by
// tensors but kept by the allocator for reuse still count.
struct MemoryStats {
  uint64_t bytes_in_use = 0;
  uint64_t peak_bytes_in_use = 0;  // since the device was opened
  uint64_t num_allocs = 0;
  uint64_t largest_alloc_size = 0;
  uint64_t bytes_limit = 0;  // what the device holds in all; 0 = unknown
};

// |device|'s figures ("" = the default device). tg::Error when its plugin does not report them.
MemoryStats memory_stats(const std::string& device = "");

// How many kernel programs |device| ("" = the default device) has made since it was opened: compiled,
// or loaded from the disk cache (TG_CACHE_DIR). A replayed tg::Jit, or a new value of a tg::Variable,
// makes none; a new graph shape does.
uint64_t programs_made(const std::string& device = "");

// Whether |device| computes in |dtype|: float16 and float64 depend on the hardware (OpenCL's
// cl_khr_fp16 / cl_khr_fp64); every other dtype works everywhere (bfloat16 as storage).
bool device_supports(const std::string& device, DType dtype);

}  // namespace tg

#endif  // TG_FRONTEND_DEVICES_H_
