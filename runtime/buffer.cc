// buffer.cc: lazy allocation and host copies through the owning Device.
#include "runtime/buffer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/device.h"
#include "runtime/trace_recorder.h"

namespace tg::runtime {
namespace {

absl::Status CheckSize(const Device& device, uint64_t want, uint64_t have, const char* what) {
  if (want <= have) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(device.name(), ": ", what, " of ", want,
                                                 " bytes does not fit a ", have, "-byte buffer"));
}

}  // namespace

std::shared_ptr<Buffer> Buffer::Create(Device& device, uint64_t nbytes) {
  return std::shared_ptr<Buffer>(new Buffer(device, nbytes));
}

Buffer::~Buffer() {
  if (tg_buffer* h = handle_.load(std::memory_order_relaxed)) device_.allocator().Release(h, nbytes_);
}

bool Buffer::allocated() const { return handle() != nullptr; }

tg_buffer* Buffer::handle() const { return handle_.load(std::memory_order_acquire); }

absl::Status Buffer::EnsureAllocated() {
  if (handle() != nullptr) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  if (handle_.load(std::memory_order_relaxed) != nullptr) return absl::OkStatus();  // another thread won
  if (nbytes_ == 0) {
    return absl::InvalidArgumentError(absl::StrCat(device_.name(), ": cannot allocate a 0-byte buffer"));
  }
  TraceSpan span("alloc", "allocate", device_.name());
  if (span.active()) {
    span.Arg(TraceArg::Num("bytes", static_cast<double>(nbytes_)));
    span.Arg(TraceArg::Str("buffer", TraceArg::Address(this)));
  }
  absl::StatusOr<tg_buffer*> b = device_.allocator().Allocate(nbytes_);
  if (!b.ok()) return b.status();
  handle_.store(*b, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status Buffer::CopyIn(const void* src, uint64_t nbytes) {
  if (absl::Status s = CheckSize(device_, nbytes, nbytes_, "CopyIn"); !s.ok()) return s;
  if (absl::Status s = EnsureAllocated(); !s.ok()) return s;
  return device_.WriteBuffer(*this, 0, src, nbytes);
}

absl::Status Buffer::CopyOut(void* dst, uint64_t nbytes) {
  if (absl::Status s = CheckSize(device_, nbytes, nbytes_, "CopyOut"); !s.ok()) return s;
  if (absl::Status s = EnsureAllocated(); !s.ok()) return s;
  if (absl::Status s = device_.Synchronize(); !s.ok()) return s;
  return device_.ReadBuffer(*this, 0, dst, nbytes);
}

bool Buffer::CopiesDirectly(const Device& a, const Device& b) {
  return &a.plugin() == &b.plugin() && a.plugin().api().copy_d2d != nullptr;
}

absl::Status Buffer::CopyFrom(Buffer& src, uint64_t nbytes) {
  if (absl::Status s = CheckSize(device_, nbytes, nbytes_, "CopyFrom (destination)"); !s.ok()) return s;
  if (absl::Status s = CheckSize(src.device_, nbytes, src.nbytes_, "CopyFrom (source)"); !s.ok()) return s;
  if (nbytes == 0) return absl::OkStatus();
  if (!CopiesDirectly(device_, src.device_)) {
    std::vector<unsigned char> staging(nbytes);
    if (absl::Status s = src.CopyOut(staging.data(), nbytes); !s.ok()) return s;
    return CopyIn(staging.data(), nbytes);
  }
  if (absl::Status s = EnsureAllocated(); !s.ok()) return s;
  if (absl::Status s = src.EnsureAllocated(); !s.ok()) return s;
  if (&src.device_ == &device_) return device_.CopyDeviceToDevice(*this, src, nbytes);  // one queue: in order
  if (!device_.OrdersWithEvents()) {
    if (absl::Status s = src.device_.Synchronize(); !s.ok()) return s;  // kernels writing |src| are done
    return device_.CopyDeviceToDevice(*this, src, nbytes);
  }
  // Ordered on the devices, the host never waiting: the copy (on this device's queue) follows the
  // kernels that write |src|, and whatever |src|'s device runs next (a kernel overwriting |src|, a
  // reuse of its memory) follows the copy.
  absl::StatusOr<DeviceEvent> written = src.device_.RecordEvent();
  if (!written.ok()) return written.status();
  if (absl::Status s = device_.WaitFor(*written); !s.ok()) return s;
  if (absl::Status s = device_.CopyDeviceToDevice(*this, src, nbytes); !s.ok()) return s;
  absl::StatusOr<DeviceEvent> read = device_.RecordEvent();
  if (!read.ok()) return read.status();
  return src.device_.WaitFor(*read);
}

}  // namespace tg::runtime
