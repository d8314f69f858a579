// ocl_device.cc: opening an OpenCL device and describing it as tg_device_props.
#include "plugins/opencl/ocl_device.h"

#include <algorithm>

#include "plugins/kit/sized_struct.h"
#include "plugins/opencl/cl_api.h"
#include "plugins/opencl/ocl_platform.h"

namespace tg_ocl {
namespace {

template <typename T>
T DeviceValue(cl_device_id id, cl_device_info what) {
  T v{};
  if (Cl().clGetDeviceInfo(id, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

bool HasExtension(const std::string& extensions, const std::string& name) {
  return (" " + extensions + " ").find(" " + name + " ") != std::string::npos;
}

// How this plugin makes program binaries, part of the fingerprint that keys them in the kernel cache.
// Raised when binaries written before must not be loaded: those made while processes shared one PoCL
// cache directory may abort PoCL (plugins/kit/process_dir.h).
constexpr char kBinaryRevision[] = "tg-opencl-binary 2";

uint32_t Clamp32(uint64_t v) { return uint32_t(std::min<uint64_t>(v, UINT32_MAX)); }

// Everything device_props reports, queried once at open.
void DescribeDevice(const ClDeviceEntry& e, tg_device* d) {
  cl_device_id id = e.device;
  d->name = DeviceString(id, CL_DEVICE_NAME);
  d->vendor = DeviceString(id, CL_DEVICE_VENDOR);
  d->arch = d->name;  // OpenCL has no ISA name; the device name is what selects the code PoCL emits
  d->fingerprint = e.platform_name + "|" + e.platform_version + "|" + d->name + "|" +
                   DeviceString(id, CL_DRIVER_VERSION) + "|" + DeviceString(id, CL_DEVICE_VERSION) + "|" +
                   kBinaryRevision;
  d->global_mem = DeviceValue<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  d->max_alloc = DeviceValue<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  d->local_mem = DeviceValue<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  d->base_align = std::max<uint64_t>(1, DeviceValue<cl_uint>(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8);
  size_t sizes[3] = {1, 1, 1};
  Cl().clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, nullptr);
  for (int i = 0; i < 3; ++i) d->max_group[i] = Clamp32(std::max<size_t>(1, sizes[i]));
  d->max_threads = Clamp32(std::max<size_t>(1, DeviceValue<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE)));
  d->vector_width = std::max<cl_uint>(1, DeviceValue<cl_uint>(id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT));
  d->compute_units = std::max<cl_uint>(1, DeviceValue<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS));
  std::string ext = DeviceString(id, CL_DEVICE_EXTENSIONS);
  d->caps = TG_CAP_TIMING;  // every queue this plugin makes has profiling enabled
  if (HasExtension(ext, "cl_khr_fp16")) d->caps |= TG_CAP_FP16;
  if (HasExtension(ext, "cl_khr_fp64") || DeviceValue<cl_ulong>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0) {
    d->caps |= TG_CAP_FP64;
  }
  if (HasExtension(ext, "cl_khr_int64_base_atomics")) d->caps |= TG_CAP_INT64_ATOMICS;
}

}  // namespace

tg_error* OpenDevice(uint32_t ordinal, tg_device** out_device) {
  if (out_device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_open: out_device is NULL");
  const Discovery& disc = Discover();
  if (ordinal >= disc.devices.size()) {
    return MakeError(TG_CODE_NOT_FOUND, "device_open: no device " + std::to_string(ordinal) + " (" +
                                            std::to_string(disc.devices.size()) + " OpenCL devices" +
                                            (disc.reason.empty() ? "" : ": " + disc.reason) + ")");
  }
  const ClDeviceEntry& e = disc.devices[ordinal];
  cl_int s = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, cl_context_properties(e.platform), 0};
  cl_context ctx = Cl().clCreateContext(props, 1, &e.device, nullptr, nullptr, &s);
  if (s != CL_SUCCESS) return MakeError(TG_CODE_UNAVAILABLE, "clCreateContext: " + ClStatusName(s));
  cl_command_queue q = Cl().clCreateCommandQueue(ctx, e.device, CL_QUEUE_PROFILING_ENABLE, &s);
  if (s != CL_SUCCESS) {
    Cl().clReleaseContext(ctx);
    return MakeError(TG_CODE_UNAVAILABLE, "clCreateCommandQueue: " + ClStatusName(s));
  }
  auto* d = new tg_device;
  d->ordinal = ordinal;
  d->id = e.device;
  d->context = ctx;
  d->queue = q;
  DescribeDevice(e, d);
  *out_device = d;
  return nullptr;
}

void CloseDevice(tg_device* device) {
  if (device == nullptr) return;
  Cl().clFinish(device->queue);
  Cl().clReleaseCommandQueue(device->queue);
  Cl().clReleaseContext(device->context);
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
  p.global_mem_bytes = device->global_mem;
  p.max_alloc_bytes = device->max_alloc;
  p.local_mem_bytes = device->local_mem;
  p.min_offset_align = device->base_align;  // offsets become sub-buffer origins
  for (int i = 0; i < 3; ++i) p.max_group_size[i] = device->max_group[i];
  p.max_group_threads = device->max_threads;
  p.preferred_vector_width = device->vector_width;
  p.compute_units = device->compute_units;
  p.caps = device->caps;
  p.num_source_dialects = 1;
  p.source_dialects = device->dialects;
  p.num_binary_formats = 1;
  p.binary_formats = device->formats;
  cl_device_type type = DeviceValue<cl_device_type>(device->id, CL_DEVICE_TYPE);
  p.device_type = (type & CL_DEVICE_TYPE_GPU) ? TG_DEVICE_TYPE_GPU
                  : (type & CL_DEVICE_TYPE_ACCELERATOR) ? TG_DEVICE_TYPE_ACCELERATOR
                  : (type & CL_DEVICE_TYPE_CPU) ? TG_DEVICE_TYPE_CPU : 0;
  tg_kit::WriteSized(p, inout);
  return nullptr;
}

tg_error* StreamSync(tg_device* device, tg_stream* stream) {
  if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: NULL device");
  if (stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: only the default (NULL) stream exists");
  }
  cl_int s = Cl().clFinish(device->queue);
  return s == CL_SUCCESS ? nullptr : MakeError(TG_CODE_ABORTED, "clFinish: " + ClStatusName(s));
}

}  // namespace tg_ocl
