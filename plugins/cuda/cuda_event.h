// cuda_event.h: the CUDA plugin's event: a CUevent recorded on the device's stream after the
// work, plus one recorded before it for TG_LAUNCH_PROFILE launches (timing = elapsed between).
#ifndef TG_PLUGINS_CUDA_CUDA_EVENT_H_
#define TG_PLUGINS_CUDA_CUDA_EVENT_H_

#include "plugins/cuda/cuda_device.h"

struct tg_event {
  tg_device* device;        // not owned; outlives the event
  tg_cuda::CUevent start;   // owned; NULL unless profiled
  tg_cuda::CUevent end;     // owned
};

namespace tg_cuda {

// Records a start event on |device|'s stream when |profiled| (call before enqueueing the work);
// |*start| stays NULL otherwise. The caller passes it on to EmitEvent or destroys it.
tg_error* RecordStart(tg_device* device, bool profiled, CUevent* start);
// Records the end event after the work and hands both to the host through |out|. With |out| ==
// NULL nothing is recorded and |start| is destroyed.
tg_error* EmitEvent(tg_device* device, CUevent start, tg_event** out);

// event_record: a (timing-free) CUevent recorded on |device|'s stream; |stream| must be NULL.
tg_error* EventRecord(tg_device* device, tg_stream* stream, tg_event** out_event);
// device_wait_event: cuStreamWaitEvent on |device|'s stream. CUDA waits on the device, across
// contexts too, so an event of any of the plugin's devices will do.
tg_error* DeviceWaitEvent(tg_device* device, tg_stream* stream, tg_event* event);

tg_error* EventWait(tg_event* event, uint64_t timeout_ns);  // UINT64_MAX = forever
tg_error* EventQuery(tg_event* event, uint32_t* out_done);
void EventDestroy(tg_event* event);
// start = 0, end = elapsed ns (cuEventElapsedTime); FAILED_PRECONDITION without TG_LAUNCH_PROFILE.
tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end);

}  // namespace tg_cuda

#endif  // TG_PLUGINS_CUDA_CUDA_EVENT_H_
