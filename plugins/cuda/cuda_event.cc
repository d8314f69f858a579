// cuda_event.cc: CUevent recording, waiting and elapsed time.
#include "plugins/cuda/cuda_event.h"

#include <chrono>
#include <thread>

#include "plugins/cuda/cuda_api.h"
#include "plugins/cuda/scoped_context.h"
#include "plugins/kit/ordering_args.h"

namespace tg_cuda {
namespace {

tg_error* NewRecordedEvent(tg_device* device, CUevent* out) {
  if (tg_error* e = CheckCu(Cu().cuEventCreate(out, CU_EVENT_DEFAULT), "cuEventCreate")) return e;
  CUresult r = Cu().cuEventRecord(*out, device->stream);
  if (r != CUDA_SUCCESS) {
    Cu().cuEventDestroy_v2(*out);
    *out = nullptr;
  }
  return CheckCu(r, "cuEventRecord");
}

}  // namespace

tg_error* RecordStart(tg_device* device, bool profiled, CUevent* start) {
  *start = nullptr;
  return profiled ? NewRecordedEvent(device, start) : nullptr;
}

tg_error* EmitEvent(tg_device* device, CUevent start, tg_event** out) {
  if (out == nullptr) {
    if (start != nullptr) Cu().cuEventDestroy_v2(start);
    return nullptr;
  }
  CUevent end = nullptr;
  if (tg_error* e = NewRecordedEvent(device, &end)) {
    if (start != nullptr) Cu().cuEventDestroy_v2(start);
    return e;
  }
  *out = new tg_event{device, start, end};
  return nullptr;
}

tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event) {
  if (tg_error* e = tg_kit::CheckEventRecordArgs(device, stream, out_event)) return e;
  ScopedContext current;
  if (tg_error* e = current.Enter(device)) return e;
  return EmitEvent(device, nullptr, out_event);
}

tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event) {
  if (tg_error* e = tg_kit::CheckDeviceWaitEventArgs(device, stream, event)) return e;
  ScopedContext current;
  if (tg_error* e = current.Enter(device)) return e;
  return CheckCu(Cu().cuStreamWaitEvent(device->stream, event->end, 0), "cuStreamWaitEvent");
}

tg_error* EventWait(tg_event* event, uint64_t timeout_ns) {
  if (event == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  ScopedContext current;
  if (tg_error* e = current.Enter(event->device)) return e;
  if (timeout_ns == UINT64_MAX) return CheckCu(Cu().cuEventSynchronize(event->end), "cuEventSynchronize");
  // No timed wait in the driver API: poll with short sleeps.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  for (;;) {
    CUresult r = Cu().cuEventQuery(event->end);
    if (r != CUDA_ERROR_NOT_READY) return CheckCu(r, "cuEventQuery");
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
  ScopedContext current;
  if (tg_error* e = current.Enter(event->device)) return e;
  CUresult r = Cu().cuEventQuery(event->end);
  *out_done = r == CUDA_ERROR_NOT_READY ? 0 : 1;
  return r == CUDA_ERROR_NOT_READY ? nullptr : CheckCu(r, "cuEventQuery");
}

void EventDestroy(tg_event* event) {
  if (event == nullptr) return;
  ScopedContext current;
  current.TryEnter(event->device);  // destroys what it can even when the context cannot be made current
  if (event->start != nullptr) Cu().cuEventDestroy_v2(event->start);
  Cu().cuEventDestroy_v2(event->end);
  delete event;
}

tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end) {
  if (event == nullptr || out_start == nullptr || out_end == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL argument");
  }
  if (event->start == nullptr) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "event_timing_ns: the launch did not set TG_LAUNCH_PROFILE");
  }
  ScopedContext current;
  if (tg_error* e = current.Enter(event->device)) return e;
  float ms = 0.f;
  CUresult r = Cu().cuEventElapsedTime(&ms, event->start, event->end);
  if (r == CUDA_ERROR_NOT_READY) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "event_timing_ns: the work has not completed");
  }
  if (tg_error* e = CheckCu(r, "cuEventElapsedTime")) return e;
  *out_start = 0;  // only end - start is portable (ABI)
  *out_end = uint64_t(double(ms) * 1e6);
  return nullptr;
}

}  // namespace tg_cuda
