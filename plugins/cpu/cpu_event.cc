// cpu_event.cc: events completed by queued (or inline) work, with CLOCK_MONOTONIC timestamps.
#include "plugins/cpu/cpu_event.h"

#include <time.h>

#include <chrono>

namespace tg_cpu {
namespace {

// Waits until |state| is done or |timeout_ns| passed; returns whether it is done. Holds |lock|.
bool WaitDone(EventState& state, std::unique_lock<std::mutex>& lock, uint64_t timeout_ns) {
  auto done = [&] { return state.done; };
  // Beyond ~292 years a steady_clock deadline would overflow: treat such timeouts as forever.
  constexpr uint64_t kForever = uint64_t(1) << 62;
  if (timeout_ns >= kForever) {
    state.done_cv.wait(lock, done);
    return true;
  }
  return state.done_cv.wait_for(lock, std::chrono::nanoseconds(timeout_ns), done);
}

}  // namespace

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

std::shared_ptr<EventState> NewEvent(tg_event** out, bool profiled) {
  if (out == nullptr) return nullptr;
  auto state = std::make_shared<EventState>(profiled);
  *out = new tg_event{state};
  return state;
}

void CompleteEvent(EventState* state, uint64_t start_ns, uint64_t end_ns, tg_code code,
                   const std::string& message) {
  if (state == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    state->start_ns = start_ns;
    state->end_ns = end_ns;
    state->code = code;
    state->message = message;
    state->done = true;
  }
  state->done_cv.notify_all();
}

void EmitEvent(tg_event** out, uint64_t start_ns, uint64_t end_ns, bool profiled, tg_code code,
               const std::string& message) {
  std::shared_ptr<EventState> state = NewEvent(out, profiled);
  CompleteEvent(state.get(), start_ns, end_ns, code, message);
}

tg_error* EventWait(tg_event* event, uint64_t timeout_ns) {
  if (event == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "event_wait: NULL event");
  EventState& state = *event->state;
  std::unique_lock<std::mutex> lock(state.mu);
  if (!WaitDone(state, lock, timeout_ns)) {
    return MakeError(TG_CODE_DEADLINE_EXCEEDED,
                     "event_wait: the work is not done after " + std::to_string(timeout_ns) + " ns");
  }
  return state.code == TG_CODE_OK ? nullptr : MakeError(state.code, state.message);
}

tg_error* EventQuery(tg_event* event, uint32_t* out_done) {
  if (event == nullptr || out_done == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_query: NULL event or out_done");
  }
  std::lock_guard<std::mutex> lock(event->state->mu);
  *out_done = event->state->done ? 1 : 0;
  return nullptr;
}

void EventDestroy(tg_event* event) { delete event; }

tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end) {
  if (event == nullptr || out_start == nullptr || out_end == nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "event_timing_ns: NULL argument");
  }
  EventState& state = *event->state;
  if (!state.profiled) {
    return MakeError(TG_CODE_FAILED_PRECONDITION,
                     "event_timing_ns: the event's launch did not set TG_LAUNCH_PROFILE");
  }
  std::unique_lock<std::mutex> lock(state.mu);
  WaitDone(state, lock, UINT64_MAX);
  *out_start = state.start_ns;
  *out_end = state.end_ns;
  return nullptr;
}

}  // namespace tg_cpu
