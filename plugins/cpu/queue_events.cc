// queue_events.cc: events recorded on, and awaited by, CPU devices' queues.
#include "plugins/cpu/queue_events.h"

#include "plugins/kit/ordering_args.h"

namespace tg_cpu {

std::shared_ptr<EventState> RecordOn(DeviceQueue& queue) {
  auto state = std::make_shared<EventState>(false);
  DeviceQueue::Task complete = [state] {
    uint64_t now = MonotonicNs();
    CompleteEvent(state.get(), now, now);
  };
  return queue.DeferIfBusy(complete) ? state : nullptr;
}

void WaitDone(EventState& state) {
  std::unique_lock<std::mutex> lock(state.mu);
  state.done_cv.wait(lock, [&] { return state.done; });
}

tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event) {
  if (tg_error* e = tg_kit::CheckEventRecordArgs(device, stream, out_event)) return e;
  std::shared_ptr<EventState> state = RecordOn(device->queue);
  if (state == nullptr) {  // nothing pending: complete already
    uint64_t now = MonotonicNs();
    EmitEvent(out_event, now, now, false);
    return nullptr;
  }
  *out_event = new tg_event{std::move(state)};
  return nullptr;
}

tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event) {
  if (tg_error* e = tg_kit::CheckDeviceWaitEventArgs(device, stream, event)) return e;
  // The task holds the state, so the host may destroy |event| now. A device that runs work inline
  // waits inline: its "queue" is the calling thread.
  device->queue.Submit([state = event->state] { WaitDone(*state); });
  return nullptr;
}

}  // namespace tg_cpu
