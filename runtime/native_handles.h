// native_handles.h: the native objects behind a runtime Buffer and Device, through the plugin's
// "tg.native_handles" extension (tg_plugin.h): a CUdeviceptr or host pointer, the memory kind ("cuda",
// "host"), the device's native stream. For host code that calls a native library (NCCL in
// //frontend/dist) on tg's buffers instead of going through the plugin ABI.
#ifndef TG_RUNTIME_NATIVE_HANDLES_H_
#define TG_RUNTIME_NATIVE_HANDLES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/buffer.h"
#include "runtime/device.h"

namespace tg::runtime {

struct NativeBuffer {
  uint64_t address = 0;     // byte 0 of the buffer in |memory_kind|'s address space
  std::string memory_kind;  // "cuda", "host", ...
};

struct NativeDevice {
  std::string memory_kind;  // of the buffers the device allocates
  void* stream = nullptr;   // its default stream (CUstream); NULL: order with Device::Synchronize()
  void* context = nullptr;  // CUcontext; NULL where there is none
};

// Whether |device|'s plugin has tg.native_handles version 1 or later.
bool HasNativeHandles(const Device& device);
// UNIMPLEMENTED (naming the plugin) when the plugin lacks the extension; else the plugin's error.
// NativeBufferOf allocates |buffer| first.
absl::StatusOr<NativeBuffer> NativeBufferOf(Buffer& buffer);
absl::StatusOr<NativeDevice> NativeDeviceOf(const Device& device);
// Makes |device|'s native context current on the calling thread (CUDA: cuCtxSetCurrent).
absl::Status BindThreadTo(const Device& device);

}  // namespace tg::runtime

#endif  // TG_RUNTIME_NATIVE_HANDLES_H_
