// ocl_event.h: the OpenCL plugin's event: one cl_event of the device's profiling queue.
// Created by copies and launches that ask for |done|; the host destroys it with event_destroy.
#ifndef TG_PLUGINS_OPENCL_OCL_EVENT_H_
#define TG_PLUGINS_OPENCL_OCL_EVENT_H_

#include <CL/cl.h>

#include "plugins/opencl/ocl_error.h"

struct tg_event {
  cl_event event;  // owned: one reference, released by EventDestroy
  bool profiled;   // a TG_LAUNCH_PROFILE launch: event_timing_ns may be asked
};

namespace tg_ocl {

// Hands |event| to the host through |out| (taking the reference), or releases it when |out| is
// NULL. |event| may be NULL only when |out| is NULL.
void EmitEvent(cl_event event, bool profiled, tg_event** out);

// UINT64_MAX waits forever; otherwise polls until |timeout_ns| passes (DEADLINE_EXCEEDED).
// A command that ended with a negative execution status is ABORTED with that status.
tg_error* EventWait(tg_event* event, uint64_t timeout_ns);
tg_error* EventQuery(tg_event* event, uint32_t* out_done);
void EventDestroy(tg_event* event);
// CL_PROFILING_COMMAND_START/END; FAILED_PRECONDITION without TG_LAUNCH_PROFILE.
tg_error* EventTiming(tg_event* event, uint64_t* out_start, uint64_t* out_end);

}  // namespace tg_ocl

#endif  // TG_PLUGINS_OPENCL_OCL_EVENT_H_
