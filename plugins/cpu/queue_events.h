// queue_events.h: ordering between CPU devices' queues (device_queue.h) with events, ABI 1.1's
// event_record and device_wait_event: a queue waits for another's work by running a task that blocks
// until the event completes, so the host never waits and each device's worker waits only for what
// it needs.
#ifndef TG_PLUGINS_CPU_QUEUE_EVENTS_H_
#define TG_PLUGINS_CPU_QUEUE_EVENTS_H_

#include <memory>

#include "plugins/cpu/cpu_device.h"
#include "plugins/cpu/cpu_event.h"

namespace tg_cpu {

// The completion of everything submitted to |queue| so far; NULL when nothing is queued or running.
std::shared_ptr<EventState> RecordOn(DeviceQueue& queue);
// Blocks until |state| is done.
void WaitDone(EventState& state);

// The table's event_record and device_wait_event (|stream| must be NULL: one queue per device).
tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event);
tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_QUEUE_EVENTS_H_
