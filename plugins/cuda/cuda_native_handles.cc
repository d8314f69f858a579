// cuda_native_handles.cc: "tg.native_handles" for CUDA device memory.
#include "plugins/cuda/cuda_native_handles.h"

#include <cstdint>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/cuda_buffer.h"
#include "plugins/cuda/cuda_device.h"
#include "plugins/cuda/cuda_error.h"
#include "plugins/kit/api_table.h"

namespace tg_cuda {
namespace {

constexpr const char* kCudaMemory = "cuda";

tg_error* BufferNative(tg_buffer* buffer, uint64_t* out_address, const char** out_memory_kind) {
  return Guard([&]() -> tg_error* {
    if (buffer == nullptr || out_address == nullptr || out_memory_kind == nullptr)
      return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_native: NULL buffer or out pointer");
    *out_address = static_cast<uint64_t>(buffer->ptr);
    *out_memory_kind = kCudaMemory;
    return nullptr;
  });
}

tg_error* DeviceNative(tg_device* device, const char** out_memory_kind, void** out_stream, void** out_context) {
  return Guard([&]() -> tg_error* {
    if (device == nullptr || out_memory_kind == nullptr || out_stream == nullptr || out_context == nullptr)
      return MakeError(TG_CODE_INVALID_ARGUMENT, "device_native: NULL device or out pointer");
    *out_memory_kind = kCudaMemory;
    *out_stream = device->stream;  // the ABI's default stream: launches and copies queue on it
    *out_context = device->context;
    return nullptr;
  });
}

tg_error* DeviceBindThread(tg_device* device) {
  return Guard([&]() -> tg_error* {
    if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_bind_thread: NULL device");
    // Left current on purpose, unlike every other entry point (scoped_context.h): the caller asks
    // for its next native call on this thread to target the device.
    return CheckCu(Cu().cuCtxSetCurrent(device->context), "cuCtxSetCurrent");
  });
}

tg_native_handles_ext MakeExt(const tg_ext* next) {
  auto e = tg_kit::NewExtension<tg_native_handles_ext>(TG_NATIVE_HANDLES_NAME, TG_NATIVE_HANDLES_VERSION, next);
  e.buffer_native = BufferNative;
  e.device_native = DeviceNative;
  e.device_bind_thread = DeviceBindThread;
  return e;
}

}  // namespace

const tg_ext* NativeHandlesExtension(const tg_ext* next) {
  static const tg_native_handles_ext ext = MakeExt(next);
  return &ext.base;
}

}  // namespace tg_cuda
