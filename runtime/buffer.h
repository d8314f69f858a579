// buffer.h: device memory as the rest of tinygrad-cc sees it: lazily allocated, reference counted
// through std::shared_ptr, and recycled through its device's BufferAllocator when the last ref goes.
#ifndef TG_RUNTIME_BUFFER_H_
#define TG_RUNTIME_BUFFER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class Device;

class Buffer {               // always held by std::shared_ptr; device memory allocated on first use
 public:
  // Allocates nothing yet. |device| must outlive the buffer (registry devices live until exit).
  static std::shared_ptr<Buffer> Create(Device& device, uint64_t nbytes);
  ~Buffer();                 // memory goes back to the device's LRU cache (reused by a later same-size alloc)
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Device& device() const { return device_; }
  uint64_t nbytes() const { return nbytes_; }
  bool allocated() const;
  // INVALID_ARGUMENT for a 0-byte buffer; otherwise the allocator's error. Thread-safe, idempotent.
  absl::Status EnsureAllocated();
  // Copies the first |nbytes| (<= nbytes(), else INVALID_ARGUMENT). |src| may be reused on return
  // (the device may still be copying from a page-locked copy of it: Device::WriteBuffer). Allocates
  // first.
  absl::Status CopyIn(const void* src, uint64_t nbytes);
  // Waits for the device's queued work (so kernels that write this buffer have finished and their
  // errors surface here), then copies the first |nbytes| into |dst|.
  absl::Status CopyOut(void* dst, uint64_t nbytes);
  tg_buffer* handle() const;                                // nullptr until allocated
  // Copies the first |nbytes| of |src| (possibly on another device) into this buffer, after the
  // work already enqueued that writes |src|. Directly with the plugin's copy_d2d when both devices
  // belong to one plugin that has it (CopiesDirectly): enqueued, the two devices ordered by events
  // where the plugin has them (Device::OrdersWithEvents), else after the host waits for |src|'s
  // device. Between plugins, staged through host memory (synchronous). Allocates both.
  absl::Status CopyFrom(Buffer& src, uint64_t nbytes);
  // Whether bytes move between |a| and |b| without a stop in host memory (one plugin with copy_d2d).
  static bool CopiesDirectly(const Device& a, const Device& b);

 private:
  Buffer(Device& device, uint64_t nbytes) : device_(device), nbytes_(nbytes) {}

  Device& device_;
  const uint64_t nbytes_;
  // Set once, under mu_ (which only allocation takes); read without it by every launch that
  // passes the buffer, which is why it is atomic.
  std::mutex mu_;
  std::atomic<tg_buffer*> handle_ = nullptr;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_BUFFER_H_
