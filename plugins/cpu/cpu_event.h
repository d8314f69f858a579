// cpu_event.h: the CPU plugin's event: the completion of one piece of work on a device's queue
// (device_queue.h), its outcome and its CLOCK_MONOTONIC times. Work that ran inline makes an event
// that is born complete. The state is shared with the queued work, so the host may destroy an event
// before its work has run.
#ifndef TG_PLUGINS_CPU_CPU_EVENT_H_
#define TG_PLUGINS_CPU_CPU_EVENT_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {

// What the work reports when it finishes; written once, by CompleteEvent.
struct EventState {
  explicit EventState(bool profiled) : profiled(profiled) {}
  const bool profiled;  // a TG_LAUNCH_PROFILE launch: event_timing_ns may be asked

  std::mutex mu;  // guards everything below
  std::condition_variable done_cv;
  bool done = false;
  uint64_t start_ns = 0, end_ns = 0;
  tg_code code = TG_CODE_OK;  // the work's asynchronous error, returned by every event_wait
  std::string message;
};

}  // namespace tg_cpu

struct tg_event {
  std::shared_ptr<tg_cpu::EventState> state;
};

namespace tg_cpu {

uint64_t MonotonicNs();

// A new event for work not yet run when |out| is not NULL (stored in |*out|; the host destroys
// it); returns its state for the work to complete, or NULL when no event was asked for.
std::shared_ptr<EventState> NewEvent(tg_event** out, bool profiled);
// Marks |state| (may be NULL) done with the work's times and outcome; wakes its waiters.
void CompleteEvent(EventState* state, uint64_t start_ns, uint64_t end_ns, tg_code code = TG_CODE_OK,
                   const std::string& message = "");
// A completed event (work that ran inline); stores it in |*out| when |out| is not NULL.
void EmitEvent(tg_event** out, uint64_t start_ns, uint64_t end_ns, bool profiled,
               tg_code code = TG_CODE_OK, const std::string& message = "");

// The table's event_* entries. EventWait returns a fresh copy of the work's error each time, or
// DEADLINE_EXCEEDED when the work is not done within |timeout_ns| (UINT64_MAX: forever).
tg_error* EventWait(tg_event* event, uint64_t timeout_ns);
tg_error* EventQuery(tg_event* event, uint32_t* out_done);
void EventDestroy(tg_event* event);
// FAILED_PRECONDITION unless the launch had TG_LAUNCH_PROFILE; waits for the work first.
tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_EVENT_H_
