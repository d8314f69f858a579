// cpu_device.cc: what the host machine looks like as a tinygrad device.
#include "plugins/cpu/cpu_device.h"

#include <unistd.h>

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "plugins/cpu/c_compiler.h"
#include "plugins/cpu/dialect_choice.h"
#include "plugins/cpu/disk_cache.h"
#include "plugins/cpu/simd.h"
#include "plugins/cpu/sized_struct.h"

namespace tg_cpu {
namespace {

// Value of the first "key : value" line of /proc/cpuinfo, or "" (non-Linux, sandboxed /proc).
std::string CpuInfoField(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::string VendorName(const std::string& vendor_id) {
  if (vendor_id == "AuthenticAMD") return "AMD";
  if (vendor_id == "GenuineIntel") return "Intel";
  return vendor_id.empty() ? "unknown" : vendor_id;
}

// Both compilers generate code for this very CPU (gcc -march=native, LLVM the host's CPU name and
// features), so the processor's model and feature flags are part of it: two machines sharing a cache
// directory never hand each other code their CPU may not run.
std::string Fingerprint(const std::string& arch) {
  const CCompiler& cc = FindCCompiler();
  std::string fp = arch + "|cpu " + HashHex({CpuInfoField("model name"), CpuInfoField("flags")}) + "|" +
                   (cc.command.empty() ? "no C compiler" : cc.version) + "|";
  for (size_t i = 1; i < cc.command.size(); ++i) fp += cc.command[i] + " ";  // flags inside $CC
  for (const std::string& f : BaseCompileFlags()) fp += f + " ";
  fp += "-lm|llvm-ir: libLLVM-15 default<O2> objects linked by ORC";
  return fp;
}

// Which source dialect comes first in props.source_dialects, i.e. which one the host renders
// (dialect_choice.h says why); "tg-uops" stays third.
void OrderDialects(tg_device* d) {
  DialectOrder order = ChooseDialects(getenv("TG_CPU_DIALECT"), KernelsAreSanitized(),
                                     LibraryInstalled("libLLVM-15.so.1", LibrarySearchDirs()));
  d->dialects[0] = order.first;
  d->dialects[1] = order.second;
}

}  // namespace

uint32_t DeviceCount() {
  static const uint32_t count = [] {
    const char* env = getenv("TG_CPU_DEVICES");
    if (env == nullptr || *env == '\0') return 1u;
    char* end = nullptr;
    long n = strtol(env, &end, 10);
    if (end == env || *end != '\0' || n < 1) return 1u;  // a typo must not hide the device
    return static_cast<uint32_t>(std::min<long>(n, kMaxDevices));
  }();
  return count;
}

uint32_t CoresOfDevice(uint32_t ordinal) {
  uint32_t cores = std::max(1u, std::thread::hardware_concurrency()), count = DeviceCount();
  uint32_t share = cores / count + (ordinal < cores % count ? 1 : 0);
  return std::max(1u, share);
}

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device) {
  if (out_device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_open: out_device is NULL");
  if (ordinal >= DeviceCount()) {
    return MakeError(TG_CODE_NOT_FOUND, "device_open: no device " + std::to_string(ordinal) + " (the CPU plugin has " +
                                            std::to_string(DeviceCount()) + " device(s); TG_CPU_DEVICES sets how many)");
  }
  auto* d = new tg_device;
  d->ordinal = ordinal;
  const SimdTarget& simd = BestSimdTarget();
  d->name = CpuInfoField("model name");
  if (d->name.empty()) d->name = "host CPU";
  if (DeviceCount() > 1)  // which slice of the host this device is
    d->name += " (slice " + std::to_string(ordinal) + " of " + std::to_string(DeviceCount()) + ", " +
               std::to_string(CoresOfDevice(ordinal)) + " cores)";
  d->vendor = VendorName(CpuInfoField("vendor_id"));
  d->arch = "x86_64-" + simd.name;
  d->fingerprint = Fingerprint(d->arch);
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  d->global_mem_bytes = pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : 0;
  d->compute_units = CoresOfDevice(ordinal);
  d->vector_width = simd.float_lanes;
  OrderDialects(d);
  *out_device = d;
  return nullptr;
}

void CloseDevice(tg_device* device) {
  if (device == nullptr) return;
  device->queue.Drain();
  delete device;
}

tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout) {
  if (device == nullptr || inout == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_props: NULL device or props");
  }
  tg_device_props p{};
  p.struct_size = sizeof p;
  p.name = device->name.c_str();
  p.vendor = device->vendor.c_str();
  p.arch = device->arch.c_str();
  p.compile_fingerprint = device->fingerprint.c_str();
  p.global_mem_bytes = device->global_mem_bytes;
  p.max_alloc_bytes = device->global_mem_bytes;
  p.local_mem_bytes = 0;  // the "c" dialect has no workgroup-local memory
  p.min_offset_align = 1;
  p.max_group_size[0] = p.max_group_size[1] = p.max_group_size[2] = 1024;
  p.max_group_threads = 1024;
  p.preferred_vector_width = device->vector_width;
  p.compute_units = device->compute_units;
  // fp16/bf16 stay off until we probe what the run-time C compiler accepts (_Float16, __bf16).
  p.caps = TG_CAP_FP64 | TG_CAP_TIMING | TG_CAP_UNIFIED_MEMORY;
  p.num_source_dialects = 3;
  p.source_dialects = device->dialects;
  p.num_binary_formats = 2;
  p.binary_formats = device->formats;
  p.device_type = TG_DEVICE_TYPE_CPU;
  WriteSized(p, inout);
  return nullptr;
}

void RecordAsyncError(tg_device* device, tg_code code, const std::string& message) {
  std::lock_guard<std::mutex> lock(device->mu);
  if (device->pending_code != TG_CODE_OK) return;
  device->pending_code = code;
  device->pending_message = message;
}

tg_error* TakeAsyncError(tg_device* device) {
  std::lock_guard<std::mutex> lock(device->mu);
  if (device->pending_code == TG_CODE_OK) return nullptr;
  tg_error* e = MakeError(device->pending_code, device->pending_message);
  device->pending_code = TG_CODE_OK;
  device->pending_message.clear();
  return e;
}

}  // namespace tg_cpu
