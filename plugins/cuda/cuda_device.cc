// cuda_device.cc: cuInit, device enumeration, primary contexts and device properties.
#include "plugins/cuda/cuda_device.h"

#include <algorithm>
#include <cstring>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/cuda_buffer.h"
#include "plugins/cuda/cuda_program.h"
#include "plugins/cuda/nvrtc_choice.h"
#include "plugins/cuda/scoped_context.h"

namespace tg_cuda {
namespace {

struct Discovery {
  uint32_t count = 0;
  std::string reason;  // why count is 0
};

Discovery DiscoverOnce() {
  Discovery d;
  std::string why;
  const CuApi* cu = LoadDriver(&why);
  if (cu == nullptr) return d.reason = why, d;
  CUresult r = cu->cuInit(0);
  if (r == CUDA_ERROR_STUB_LIBRARY) {
    d.reason = "libcuda.so.1 is a stub (CUDA_ERROR_STUB_LIBRARY 34): no NVIDIA driver";
    return d;
  }
  if (r != CUDA_SUCCESS) return d.reason = "cuInit failed: " + CuResultName(r), d;
  int n = 0;
  r = cu->cuDeviceGetCount(&n);
  if (r != CUDA_SUCCESS) return d.reason = "cuDeviceGetCount failed: " + CuResultName(r), d;
  if (n <= 0) return d.reason = "the NVIDIA driver reports no CUDA devices", d;
  d.count = uint32_t(n);
  return d;
}

const Discovery& Discover() {
  static const Discovery d = DiscoverOnce();  // thread-safe static init; cuInit runs once
  return d;
}

int Attr(CUdevice dev, int attr) {
  int v = 0;
  return Cu().cuDeviceGetAttribute(&v, attr, dev) == CUDA_SUCCESS ? v : 0;
}

void DescribeDevice(tg_device* d) {
  char name[256] = {};
  Cu().cuDeviceGetName(name, sizeof name - 1, d->device);
  d->name = name;
  d->cc_major = Attr(d->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d->cc_minor = Attr(d->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d->arch = "sm_" + std::to_string(d->cc_major) + std::to_string(d->cc_minor);
  int driver = 0;
  if (Cu().cuDriverGetVersion(&driver) != CUDA_SUCCESS) driver = 0;
  NvrtcChoice nvrtc = ChooseNvrtc(driver);
  d->nvrtc = nvrtc.nvrtc;
  d->no_nvrtc = nvrtc.why_none;
  d->fingerprint = d->arch + "|driver " + std::to_string(driver) + "|" + nvrtc.description;
  size_t total = 0;
  Cu().cuDeviceTotalMem_v2(&total, d->device);
  d->global_mem = total;
  d->local_mem = uint64_t(Attr(d->device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  for (int i = 0; i < 3; ++i) {
    d->max_group[i] = uint32_t(std::max(1, Attr(d->device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i)));
  }
  d->max_threads = uint32_t(std::max(1, Attr(d->device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)));
  d->compute_units = uint32_t(std::max(1, Attr(d->device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)));
  int cc = d->cc_major * 10 + d->cc_minor;
  d->caps = TG_CAP_FP64 | TG_CAP_INT64_ATOMICS | TG_CAP_TIMING;
  if (cc >= 53) d->caps |= TG_CAP_FP16;
  if (cc >= 80) d->caps |= TG_CAP_BF16;
}

}  // namespace

uint32_t DeviceCount(const char** reason) {
  const Discovery& d = Discover();
  if (reason != nullptr) *reason = d.count == 0 ? d.reason.c_str() : nullptr;
  return d.count;
}

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device) {
  if (out_device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_open: out_device is NULL");
  const char* reason = nullptr;
  uint32_t n = DeviceCount(&reason);
  if (ordinal >= n) {
    return MakeError(TG_CODE_NOT_FOUND, "device_open: no device " + std::to_string(ordinal) + " (" +
                                            std::to_string(n) + " CUDA devices" +
                                            (reason != nullptr ? std::string(": ") + reason : "") + ")");
  }
  auto* d = new tg_device;
  d->ordinal = ordinal;
  tg_error* e = CheckCu(Cu().cuDeviceGet(&d->device, int(ordinal)), "cuDeviceGet");
  if (e == nullptr) e = CheckCu(Cu().cuDevicePrimaryCtxRetain(&d->context, d->device), "cuDevicePrimaryCtxRetain");
  if (e != nullptr) {
    delete d;
    return e;
  }
  ScopedContext current;  // the stream is created in the device's context
  if ((e = current.Enter(d)) == nullptr) {
    e = CheckCu(Cu().cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  }
  if (e != nullptr) {
    Cu().cuDevicePrimaryCtxRelease_v2(d->device);
    delete d;
    return e;
  }
  DescribeDevice(d);
  *out_device = d;
  return nullptr;
}

void CloseDevice(tg_device* device) {
  if (device == nullptr) return;
  for (tg_program* p : device->programs.TakeAll()) ReleaseProgram(p);
  for (tg_buffer* b : device->buffers.TakeAll()) ReleaseBuffer(b);
  {
    ScopedContext current;
    if (current.TryEnter(device)) {
      Cu().cuStreamSynchronize(device->stream);
      Cu().cuStreamDestroy_v2(device->stream);
    }
  }
  Cu().cuDevicePrimaryCtxRelease_v2(device->device);
  delete device;
}

tg_error* GetDeviceProps(tg_device* device, tg_device_props* inout) {
  if (device == nullptr || inout == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "device_props: NULL device or props");
  }
  tg_device_props p{};
  p.struct_size = sizeof p;
  p.name = device->name.c_str();
  p.vendor = "NVIDIA";
  p.device_type = TG_DEVICE_TYPE_GPU;  // the host prefers GPUs when choosing a default device
  p.arch = device->arch.c_str();
  p.compile_fingerprint = device->fingerprint.c_str();
  p.global_mem_bytes = p.max_alloc_bytes = device->global_mem;
  p.local_mem_bytes = device->local_mem;
  // Any byte offset is a valid pointer; alignment for the element type is the host's business.
  p.min_offset_align = 1;
  for (int i = 0; i < 3; ++i) p.max_group_size[i] = device->max_group[i];
  p.max_group_threads = device->max_threads;
  p.preferred_vector_width = 4;  // float4 loads are the widest single global access
  p.compute_units = device->compute_units;
  p.caps = device->caps;
  // Without an NVRTC the driver can use, cuda-c is not offered, so the host renders ptx instead of
  // failing every compile.
  bool cuda_c = device->nvrtc != nullptr;
  p.num_source_dialects = cuda_c ? 2 : 1;
  p.source_dialects = cuda_c ? device->dialects : device->dialects + 1;
  p.num_binary_formats = 2;
  p.binary_formats = device->formats;
  size_t n = std::min<size_t>(sizeof p, inout->struct_size), head = sizeof p.struct_size;
  if (n > head) std::memcpy(reinterpret_cast<char*>(inout) + head, reinterpret_cast<char*>(&p) + head, n - head);
  return nullptr;
}

tg_error* StreamSync(tg_device* device, tg_stream* stream) {
  if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: NULL device");
  if (stream != nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: only the default (NULL) stream exists");
  ScopedContext current;
  if (tg_error* e = current.Enter(device)) return e;
  return CheckCu(Cu().cuStreamSynchronize(device->stream), "cuStreamSynchronize");
}

}  // namespace tg_cuda
