// cpu_native_handles.cc: "tg.native_handles" for host memory.
#include "plugins/cpu/cpu_native_handles.h"

#include <cstdint>

#include "plugins/cpu/cpu_buffer.h"
#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {
namespace {

constexpr const char* kHostMemory = "host";

tg_error* BufferNative(tg_buffer* buffer, uint64_t* out_address, const char** out_memory_kind) {
  return Guard([&]() -> tg_error* {
    if (buffer == nullptr || out_address == nullptr || out_memory_kind == nullptr)
      return MakeError(TG_CODE_INVALID_ARGUMENT, "buffer_native: NULL buffer or out pointer");
    *out_address = reinterpret_cast<uintptr_t>(buffer->data);
    *out_memory_kind = kHostMemory;
    return nullptr;
  });
}

tg_error* DeviceNative(tg_device* device, const char** out_memory_kind, void** out_stream, void** out_context) {
  return Guard([&]() -> tg_error* {
    if (device == nullptr || out_memory_kind == nullptr || out_stream == nullptr || out_context == nullptr)
      return MakeError(TG_CODE_INVALID_ARGUMENT, "device_native: NULL device or out pointer");
    *out_memory_kind = kHostMemory;
    *out_stream = nullptr;   // launches order themselves; stream_sync is the only fence
    *out_context = nullptr;
    return nullptr;
  });
}

tg_error* DeviceBindThread(tg_device* device) {
  if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "device_bind_thread: NULL device");
  return nullptr;  // any thread can touch host memory
}

tg_native_handles_ext MakeExt() {
  tg_native_handles_ext e{};
  e.base.struct_size = sizeof e;
  e.base.name = TG_NATIVE_HANDLES_NAME;
  e.base.version = TG_NATIVE_HANDLES_VERSION;
  e.base.next = nullptr;
  e.buffer_native = BufferNative;
  e.device_native = DeviceNative;
  e.device_bind_thread = DeviceBindThread;
  return e;
}

const tg_native_handles_ext kExt = MakeExt();

}  // namespace

const tg_ext* NativeHandlesExtension() { return &kExt.base; }

}  // namespace tg_cpu
