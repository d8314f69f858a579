// cpu_event.cc: completed events with CLOCK_MONOTONIC timestamps.
#include "plugins/cpu/cpu_event.h"

#include <time.h>

namespace tg_cpu {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void EmitEvent(tg_event** out, uint64_t start_ns, uint64_t end_ns, bool profiled, tg_code code,
               const std::string& message) {
  if (out == nullptr) return;
  *out = new tg_event{start_ns, end_ns, profiled, code, message};
}

tg_error* EventWait(tg_event* event, uint64_t /*timeout_ns: the work is already done*/) {
  if (event == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  return event->code == TG_CODE_OK ? nullptr : MakeError(event->code, event->message);
}

tg_error* EventQuery(tg_event* event, uint32_t* out_done) {
  if (event == nullptr || out_done == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_query: NULL event or out_done");
  }
  *out_done = 1;
  return nullptr;
}

void EventDestroy(tg_event* event) { delete event; }

tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end) {
  if (event == nullptr || out_start == nullptr || out_end == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL argument");
  }
  if (!event->profiled) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     "event_timing_ns: the event's launch did not set TG_LAUNCH_PROFILE");
  }
  *out_start = event->start_ns;
  *out_end = event->end_ns;
  return nullptr;
}

}  // namespace tg_cpu
