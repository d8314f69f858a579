// cpu_device.h: the CPU plugin's device object: the host's cores and memory as one device.
// Opened by device_open, closed by device_close; also carries the default stream: its in-order work
// queue (device_queue.h) and its first asynchronous error.
#ifndef TG_PLUGINS_CPU_CPU_DEVICE_H_
#define TG_PLUGINS_CPU_CPU_DEVICE_H_

#include <cstdint>
#include <mutex>
#include <string>

#include "plugins/cpu/cpu_error.h"
#include "plugins/cpu/device_queue.h"
#include "plugins/kit/memory_stats.h"

struct tg_device {
  uint32_t ordinal = 0;
  // Strings handed out through device_props; they live as long as the device (ABI rule).
  std::string name, vendor, arch, fingerprint;
  // Preference order (the host renders the first it can): see OrderDialects in cpu_device.cc. The
  // interpreted "tg-uops" is always last: the host renders it only for its first execution tier.
  const char* dialects[3] = {"c", "llvm-ir", "tg-uops"};
  const char* formats[2] = {"elf-so", "llvm-obj"};
  uint64_t global_mem_bytes = 0;
  uint32_t compute_units = 1;
  uint32_t vector_width = 1;

  // The first kernel failure on the default stream since the last stream_sync.
  std::mutex mu;
  tg_code pending_code = TG_CODE_OK;
  std::string pending_message;

  // What its buffers hold ("tg.memory_stats").
  tg_kit::MemoryCounter memory;

  // The default stream's work (launches, copies with an event, deferred frees). Last member: it is
  // destroyed first, so the work it still runs at close sees a whole device.
  tg_cpu::DeviceQueue queue;
};

namespace tg_cpu {

// How many devices the plugin presents: TG_CPU_DEVICES (default 1, at most kMaxDevices), read once.
// Each device owns an equal slice of the cores (its own thread pool), so shards of a tensor on
// CPU:0 and CPU:1 run side by side like two accelerators would.
constexpr uint32_t kMaxDevices = 64;
uint32_t DeviceCount();
// The cores device |ordinal| of DeviceCount() gets: hardware threads / count, spread the rest
// over the first devices, at least 1.
uint32_t CoresOfDevice(uint32_t ordinal);

// Opens ordinal 0..DeviceCount()-1 (NOT_FOUND otherwise). Reads /proc/cpuinfo and sysconf, and asks the C compiler
// for its version (the fingerprint), so the first open costs one compiler spawn.
tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device);
// Runs the work still queued on |device| (and the frees deferred behind it), then frees it.
void CloseDevice(tg_device* device);
// Fills |inout| up to its struct_size. Strings live until CloseDevice.
tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout);

// Remembers the first asynchronous error of the default stream (later ones are dropped, as the
// first failure usually explains the rest).
void RecordAsyncError(tg_device* device, tg_code code, const std::string& message);
// Returns and clears that error (NULL when there is none); the caller owns the result.
tg_error* TakeAsyncError(tg_device* device);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_DEVICE_H_
