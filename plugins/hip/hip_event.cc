// hip_event.cc: hipEvent_t recording, waiting and elapsed time.
#include "plugins/hip/hip_event.h"

#include <chrono>
#include <thread>

#include "plugins/hip/hip_api.h"
#include "plugins/kit/ordering_args.h"

namespace tg_hip {
namespace {

// |flags|: hipEventDefault where the host may ask for timing, hipEventDisableTiming where it cannot
// (cheaper to record and to wait for).
tg_error* NewRecordedEvent(tg_device* device, unsigned flags, hipEvent_t* out) {
  if (tg_error* e = CheckHip(Hip().hipEventCreateWithFlags(out, flags), "hipEventCreate")) return e;
  hipError_t r = Hip().hipEventRecord(*out, device->stream);
  if (r != hipSuccess) {
    Hip().hipEventDestroy(*out);
    *out = nullptr;
  }
  return CheckHip(r, "hipEventRecord");
}

}  // namespace

tg_error* RecordStart(tg_device* device, bool profiled, hipEvent_t* start) {
  *start = nullptr;
  return profiled ? NewRecordedEvent(device, hipEventDefault, start) : nullptr;
}

tg_error* EmitEvent(tg_device* device, hipEvent_t start, tg_event** out) {
  if (out == nullptr) {
    if (start != nullptr) Hip().hipEventDestroy(start);
    return nullptr;
  }
  hipEvent_t end = nullptr;
  // Only a profiled launch (with a start event) is ever timed.
  unsigned flags = start != nullptr ? hipEventDefault : hipEventDisableTiming;
  if (tg_error* e = NewRecordedEvent(device, flags, &end)) {
    if (start != nullptr) Hip().hipEventDestroy(start);
    return e;
  }
  *out = new tg_event{device, start, end};
  return nullptr;
}

tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event) {
  if (tg_error* e = tg_kit::CheckEventRecordArgs(device, stream, out_event)) return e;
  if (tg_error* e = MakeCurrent(device)) return e;
  return EmitEvent(device, nullptr, out_event);
}

tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event) {
  if (tg_error* e = tg_kit::CheckDeviceWaitEventArgs(device, stream, event)) return e;
  if (tg_error* e = MakeCurrent(device)) return e;
  return CheckHip(Hip().hipStreamWaitEvent(device->stream, event->end, 0), "hipStreamWaitEvent");
}

tg_error* EventWait(tg_event* event, uint64_t timeout_ns) {
  if (event == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  if (tg_error* e = MakeCurrent(event->device)) return e;
  if (timeout_ns == UINT64_MAX) return CheckHip(Hip().hipEventSynchronize(event->end), "hipEventSynchronize");
  // No timed wait in the HIP API: poll with short sleeps.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  for (;;) {
    hipError_t r = Hip().hipEventQuery(event->end);
    if (r != hipErrorNotReady) return CheckHip(r, "hipEventQuery");
    if (std::chrono::steady_clock::now() >= deadline) {
      return MakeError(TG_CODE_DEADLINE_EXCEEDED, "event_wait: not complete within the timeout");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

tg_error* EventQuery(tg_event* event, uint32_t* out_done) {
  if (event == nullptr || out_done == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_query: NULL event or out_done");
  }
  if (tg_error* e = MakeCurrent(event->device)) return e;
  hipError_t r = Hip().hipEventQuery(event->end);
  *out_done = r == hipErrorNotReady ? 0 : 1;
  return r == hipErrorNotReady ? nullptr : CheckHip(r, "hipEventQuery");
}

void EventDestroy(tg_event* event) {
  if (event == nullptr) return;
  MakeCurrent(event->device);
  if (event->start != nullptr) Hip().hipEventDestroy(event->start);
  Hip().hipEventDestroy(event->end);
  delete event;
}

tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end) {
  if (event == nullptr || out_start == nullptr || out_end == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL argument");
  }
  if (event->start == nullptr) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "event_timing_ns: the launch did not set TG_LAUNCH_PROFILE");
  }
  if (tg_error* e = MakeCurrent(event->device)) return e;
  float ms = 0.f;
  hipError_t r = Hip().hipEventElapsedTime(&ms, event->start, event->end);
  if (r == hipErrorNotReady) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "event_timing_ns: the work has not completed");
  }
  if (tg_error* e = CheckHip(r, "hipEventElapsedTime")) return e;
  *out_start = 0;  // only end - start is portable (ABI)
  *out_end = uint64_t(double(ms) * 1e6);
  return nullptr;
}

}  // namespace tg_hip
