// hip_device.cc: hipInit, device enumeration, opening and closing devices, device properties.
#include "plugins/hip/hip_device.h"

#include <algorithm>
#include <cstring>

#include "plugins/hip/hip_api.h"
#include "plugins/hip/hip_buffer.h"
#include "plugins/hip/hip_program.h"
#include "plugins/hip/hiprtc_compiler.h"
#include "plugins/hip/hiprtc_program.h"

namespace tg_hip {
namespace {

struct Discovery {
  uint32_t count = 0;
  std::string reason;
};

Discovery DiscoverOnce() {
  Discovery d;
  const HipApi& h = Hip();
  if (!h.has_runtime) return d.reason = h.runtime_why, d;
  hipError_t e = h.hipInit(0);
  if (e != hipSuccess) return d.reason = "hipInit failed: " + HipErrorText(e) + " (no usable AMD GPU or driver)", d;
  int n = 0;
  e = h.hipGetDeviceCount(&n);
  if (e != hipSuccess) return d.reason = "hipGetDeviceCount failed: " + HipErrorText(e), d;
  if (n <= 0) return d.reason = "the HIP runtime reports no devices", d;
  d.count = uint32_t(n);
  return d;
}

const Discovery& Discover() {
  static const Discovery d = DiscoverOnce();
  return d;
}

// "gfx90a:sramecc+:xnack-" -> "gfx90a": hiprtc takes the bare name.
std::string BareArch(const char* gcn) {
  std::string s = gcn;
  return s.substr(0, s.find(':'));
}

tg_error* DescribeDevice(tg_device* d) {
  hipDeviceProp_t p;
  std::memset(&p, 0, sizeof p);
  if (tg_error* e = CheckHip(Hip().hipGetDeviceProperties(&p, int(d->ordinal)), "hipGetDeviceProperties")) return e;
  d->name = p.name;
  d->arch = BareArch(p.gcnArchName);
  int runtime = 0;
  Hip().hipRuntimeGetVersion(&runtime);
  d->fingerprint = std::string(p.gcnArchName) + "|runtime " + std::to_string(runtime) + "|" + HiprtcDescription();
  d->global_mem = p.totalGlobalMem;
  d->local_mem = p.sharedMemPerBlock;
  for (int i = 0; i < 3; ++i) d->max_group[i] = uint32_t(std::max(1, p.maxThreadsDim[i]));
  d->max_threads = uint32_t(std::max(1, p.maxThreadsPerBlock));
  d->compute_units = uint32_t(std::max(1, p.multiProcessorCount));
  d->caps = TG_CAP_FP16 | TG_CAP_FP64 | TG_CAP_INT64_ATOMICS | TG_CAP_TIMING;
  return nullptr;
}

// The buffers and programs the host did not free: device memory and code objects the runtime
// would otherwise keep until the process ends. Released even when the device could not be made
// current (hipFree and hipModuleUnload take the handle, not the current device), so no handle leaks.
void ReleaseOwned(tg_device* d) {
  for (tg_program* p : d->programs.TakeAll()) ReleaseProgram(p);
  for (tg_buffer* b : d->buffers.TakeAll()) ReleaseBuffer(b);
}

}  // namespace

uint32_t DeviceCount(const char** reason) {
  const Discovery& d = Discover();
  if (reason != nullptr) *reason = d.count == 0 ? d.reason.c_str() : nullptr;
  return d.count;
}

tg_error* MakeCurrent(const tg_device* device) {
  return CheckHip(Hip().hipSetDevice(int(device->ordinal)), "hipSetDevice");
}

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device) {
  if (out_device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_open: out_device is NULL");
  const char* reason = nullptr;
  uint32_t n = DeviceCount(&reason);
  if (ordinal >= n) {
    return MakeError(TG_CODE_NOT_FOUND, "device_open: no device " + std::to_string(ordinal) + " (" +
                                            std::to_string(n) + " HIP devices" +
                                            (reason != nullptr ? std::string(": ") + reason : "") + ")");
  }
  auto* d = new tg_device;
  d->ordinal = ordinal;
  tg_error* e = MakeCurrent(d);
  if (e == nullptr) e = CheckHip(Hip().hipStreamCreateWithFlags(&d->stream, hipStreamNonBlocking), "hipStreamCreate");
  if (e == nullptr) e = DescribeDevice(d);
  if (e != nullptr) {
    if (d->stream != nullptr) Hip().hipStreamDestroy(d->stream);
    delete d;
    return e;
  }
  *out_device = d;
  return nullptr;
}

void CloseDevice(tg_device* device) {
  if (device == nullptr) return;
  bool current = MakeCurrent(device) == nullptr;
  if (current) Hip().hipStreamSynchronize(device->stream);  // nothing queued still uses them
  ReleaseOwned(device);
  if (current) Hip().hipStreamDestroy(device->stream);
  delete device;
}

tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout) {
  if (device == nullptr || inout == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_props: NULL device or props");
  }
  tg_device_props p{};
  p.struct_size = sizeof p;
  p.name = device->name.c_str();
  p.vendor = "AMD";
  p.device_type = TG_DEVICE_TYPE_GPU;  // the host prefers GPUs when choosing a default device
  p.arch = device->arch.c_str();
  p.compile_fingerprint = device->fingerprint.c_str();
  p.global_mem_bytes = p.max_alloc_bytes = device->global_mem;
  p.local_mem_bytes = device->local_mem;
  p.min_offset_align = 1;  // any byte offset is a valid pointer; element alignment is the host's
  for (int i = 0; i < 3; ++i) p.max_group_size[i] = device->max_group[i];
  p.max_group_threads = device->max_threads;
  p.preferred_vector_width = 4;
  p.compute_units = device->compute_units;
  p.caps = device->caps;
  // A device whose arch hiprtc refused in the probe (hiprtc_arch_probe.h) has no dialect this plugin
  // can compile; code objects built elsewhere still load.
  p.num_source_dialects = ArchCompiles(device->arch) ? 1 : 0;
  p.source_dialects = device->dialects;
  p.num_binary_formats = 1;
  p.binary_formats = device->formats;
  size_t n = std::min<size_t>(sizeof p, inout->struct_size), head = sizeof p.struct_size;
  if (n > head) std::memcpy(reinterpret_cast<char*>(inout) + head, reinterpret_cast<char*>(&p) + head, n - head);
  return nullptr;
}

tg_error* StreamSync(tg_device* device, tg_stream* stream) {
  if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: NULL device");
  if (stream != nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: only the default (NULL) stream exists");
  if (tg_error* e = MakeCurrent(device)) return e;
  return CheckHip(Hip().hipStreamSynchronize(device->stream), "hipStreamSynchronize");
}

}  // namespace tg_hip
