// cpu_event.h: the CPU plugin's event: work on the CPU finishes before the enqueueing call returns,
// so an event is born complete and only carries the work's outcome and its CLOCK_MONOTONIC times.
#ifndef TG_PLUGINS_CPU_CPU_EVENT_H_
#define TG_PLUGINS_CPU_CPU_EVENT_H_

#include <cstdint>
#include <string>

#include "plugins/cpu/cpu_error.h"

struct tg_event {
  uint64_t start_ns = 0, end_ns = 0;
  bool profiled = false;           // a TG_LAUNCH_PROFILE launch: event_timing_ns may be asked
  tg_code code = TG_CODE_OK;       // the work's asynchronous error, returned by every event_wait
  std::string message;
};

namespace tg_cpu {

uint64_t MonotonicNs();

// A completed event; stores it in |*out| when |out| is not NULL (the host destroys it).
void EmitEvent(tg_event** out, uint64_t start_ns, uint64_t end_ns, bool profiled,
               tg_code code = TG_CODE_OK, const std::string& message = "");

// The table's event_* entries. EventWait returns a fresh copy of the work's error each time.
tg_error* EventWait(tg_event* event, uint64_t timeout_ns);
tg_error* EventQuery(tg_event* event, uint32_t* out_done);
void EventDestroy(tg_event* event);
// FAILED_PRECONDITION unless the launch had TG_LAUNCH_PROFILE.
tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_EVENT_H_
