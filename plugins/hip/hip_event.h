// hip_event.h: the HIP plugin's event: a hipEvent_t recorded on the device's stream after the
// work, plus one recorded before it for TG_LAUNCH_PROFILE launches (timing = elapsed between).
#ifndef TG_PLUGINS_HIP_HIP_EVENT_H_
#define TG_PLUGINS_HIP_HIP_EVENT_H_

#include "plugins/hip/hip_device.h"

struct tg_event {
  tg_device* device;        // not owned; outlives the event
  hipEvent_t start;   // owned; NULL unless profiled
  hipEvent_t end;     // owned
};

namespace tg_hip {

// Records a start event on |device|'s stream when |profiled| (call before enqueueing the work);
// |*start| stays NULL otherwise. The caller passes it on to EmitEvent or destroys it.
tg_error* RecordStart(tg_device* device, bool profiled, hipEvent_t* start);
// Records the end event after the work and hands both to the host through |out|. With |out| ==
// NULL nothing is recorded and |start| is destroyed.
tg_error* EmitEvent(tg_device* device, hipEvent_t start, tg_event** out);

// event_record: a timing-free hipEvent_t recorded on |device|'s stream; |stream| must be NULL.
tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event);
// device_wait_event: hipStreamWaitEvent on |device|'s stream. HIP waits on the device for an event of
// any device, so an event of any of the plugin's devices will do.
tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event);

tg_error* EventWait(tg_event* event, uint64_t timeout_ns);  // UINT64_MAX = forever
tg_error* EventQuery(tg_event* event, uint32_t* out_done);
void EventDestroy(tg_event* event);
// start = 0, end = elapsed ns (hipEventElapsedTime); FAILED_PRECONDITION without TG_LAUNCH_PROFILE.
tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end);

}  // namespace tg_hip

#endif  // TG_PLUGINS_HIP_HIP_EVENT_H_
