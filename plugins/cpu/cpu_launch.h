// cpu_launch.h: running a c-dialect kernel's workgroups on the thread pool, and the default stream.
// launch() checks and marshals its arguments, then enqueues the kernel on its device's in-order
// queue (device_queue.h; with one device it runs inline before launch() returns). A kernel's nonzero
// return is not a launch error but an asynchronous one, reported INTERNAL at event_wait /
// stream_sync (tg_plugin.h).
#ifndef TG_PLUGINS_CPU_CPU_LAUNCH_H_
#define TG_PLUGINS_CPU_CPU_LAUNCH_H_

#include "plugins/cpu/cpu_error.h"

namespace tg_cpu {

// INVALID_ARGUMENT for a NULL program, a non-NULL stream, a zero grid or group dimension, an
// unknown arg kind, or a buffer arg that is NULL or whose offset lies past its end.
tg_error* Launch(const tg_launch_args* args);
// |stream| must be NULL. Waits for the device's queued work, then returns (and clears) the first
// kernel failure since the last sync.
tg_error* StreamSync(tg_device* device, tg_stream* stream);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_CPU_LAUNCH_H_
