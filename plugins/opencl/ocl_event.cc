// ocl_event.cc: waiting on, polling and timing cl_events.
#include "plugins/opencl/ocl_event.h"

#include <chrono>
#include <thread>

#include "plugins/opencl/cl_api.h"

namespace tg_ocl {
namespace {

// The event's CL_EVENT_COMMAND_EXECUTION_STATUS (CL_COMPLETE = 0, negative = failed).
cl_int ExecutionStatus(cl_event e, cl_int* out) {
  return Cl().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *out, out, nullptr);
}

tg_error* ErrorOfStatus(cl_int status) {
  if (status >= 0) return nullptr;
  return MakeError(TG_CODE_ABORTED, "the command failed on the device: " + ClStatusName(status));
}

}  // namespace

void EmitEvent(cl_event event, bool profiled, tg_event** out) {
  if (out == nullptr) {
    if (event != nullptr) Cl().clReleaseEvent(event);
    return;
  }
  *out = new tg_event{event, profiled};
}

tg_error* EventWait(tg_event* event, uint64_t timeout_ns) {
  if (event == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  if (timeout_ns == UINT64_MAX) {
    cl_int s = Cl().clWaitForEvents(1, &event->event);
    cl_int status = 0;
    if (tg_error* e = CheckCl(ExecutionStatus(event->event, &status), "clGetEventInfo")) return e;
    if (status < 0) return ErrorOfStatus(status);
    return s == CL_SUCCESS ? nullptr : MakeError(TG_CODE_ABORTED, "clWaitForEvents: " + ClStatusName(s));
  }
  // OpenCL has no timed wait: poll, sleeping briefly so a long wait does not spin a core.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
  for (;;) {
    cl_int status = 0;
    if (tg_error* e = CheckCl(ExecutionStatus(event->event, &status), "clGetEventInfo")) return e;
    if (status <= CL_COMPLETE) return ErrorOfStatus(status);
    if (std::chrono::steady_clock::now() >= deadline) {
      return MakeError(TG_CODE_DEADLINE_EXCEEDED, "event_wait: not complete within the timeout");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

tg_error* EventQuery(tg_event* event, uint32_t* out_done) {
  if (event == nullptr || out_done == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_query: NULL event or out_done");
  }
  cl_int status = 0;
  if (tg_error* e = CheckCl(ExecutionStatus(event->event, &status), "clGetEventInfo")) return e;
  *out_done = status <= CL_COMPLETE ? 1 : 0;
  return ErrorOfStatus(status);
}

void EventDestroy(tg_event* event) {
  if (event == nullptr) return;
  Cl().clReleaseEvent(event->event);
  delete event;
}

tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end) {
  if (event == nullptr || out_start == nullptr || out_end == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL argument");
  }
  if (!event->profiled) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     "event_timing_ns: the event's launch did not set TG_LAUNCH_PROFILE");
  }
  cl_ulong start = 0, end = 0;
  cl_int s = Cl().clGetEventProfilingInfo(event->event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  if (s == CL_SUCCESS) {
    s = Cl().clGetEventProfilingInfo(event->event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
  }
  if (s == CL_PROFILING_INFO_NOT_AVAILABLE) {
    return MakeError(TG_CODE_FAILED_PRECONDITION, "event_timing_ns: the command has not completed");
  }
  if (tg_error* e = CheckCl(s, "clGetEventProfilingInfo")) return e;
  *out_start = start;
  *out_end = end;
  return nullptr;
}

}  // namespace tg_ocl
