// cpu_launch.cc: argument marshalling into the "c" calling convention, the workgroup loop, and
// handing the marshalled launch to the device's queue.
#include "plugins/cpu/cpu_launch.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "plugins/cpu/cpu_buffer.h"
#include "plugins/cpu/cpu_event.h"
#include "plugins/cpu/cpu_program.h"
#include "plugins/cpu/device_queue.h"
#include "plugins/cpu/sized_struct.h"
#include "plugins/cpu/thread_pool.h"

namespace tg_cpu {
namespace {

tg_error* Invalid(const std::string& what) {
  return MakeError(TG_CODE_INVALID_ARGUMENT, "launch: " + what);
}

// Splits tg_args into the convention's two arrays (buffers and scalars, each in parameter order).
tg_error* MarshalArgs(const tg_launch_args& a, std::vector<void*>* buffers,
                      std::vector<int64_t>* scalars) {
  if (a.num_args > 0 && a.args == nullptr) return Invalid("num_args > 0 but args is NULL");
  for (uint32_t i = 0; i < a.num_args; ++i) {
    const tg_arg& arg = a.args[i];
    auto which = [i] { return "arg " + std::to_string(i); };  // built only for an error
    switch (arg.kind) {
      case TG_ARG_BUFFER:
        if (arg.buffer == nullptr) return Invalid(which() + ": NULL buffer");
        if (arg.offset > arg.buffer->size) return Invalid(which() + ": offset past the buffer's end");
        buffers->push_back(static_cast<char*>(arg.buffer->data) + arg.offset);
        break;
      case TG_ARG_I32:
        scalars->push_back(static_cast<int32_t>(arg.value));
        break;
      case TG_ARG_I64:
        scalars->push_back(arg.value);
        break;
      default:
        return Invalid(which() + ": unknown kind " + std::to_string(arg.kind));
    }
  }
  return nullptr;
}

// Runs every workgroup (x fastest) across the pool; returns the first nonzero kernel result.
// One device: every core. Several (TG_CPU_DEVICES): the device's own slice, so devices run in parallel.
ThreadPool& PoolOf(const tg_device* device) {
  if (DeviceCount() == 1) return ThreadPool::Global();
  return ThreadPool::ForDevice(device->ordinal, device->compute_units);
}

// A compiled kernel's entry, or the interpreter on a tg-uops program: one workgroup per call.
int32_t RunGroup(const tg_program& program, const tg_c_dispatch_state& dispatch, const tg_c_workgroup_state& wg) {
  if (program.uops != nullptr) return program.uops->Run(&dispatch, &wg);
  return program.fn(&dispatch, &wg);
}

int32_t RunGroups(ThreadPool& pool, const tg_program& program, const tg_c_dispatch_state& dispatch) {
  const uint64_t gx = dispatch.num_groups[0], gy = dispatch.num_groups[1];
  const uint64_t total = gx * gy * dispatch.num_groups[2];
  std::atomic<int32_t> failure{0};
  pool.ParallelFor(total, [&](uint64_t begin, uint64_t end, uint32_t worker) {
    tg_c_workgroup_state wg{};
    wg.struct_size = sizeof wg;
    wg.worker_id = worker;
    for (uint64_t i = begin; i < end; ++i) {
      wg.group_id[0] = static_cast<uint32_t>(i % gx);
      wg.group_id[1] = static_cast<uint32_t>((i / gx) % gy);
      wg.group_id[2] = static_cast<uint32_t>(i / (gx * gy));
      if (int32_t rc = RunGroup(program, dispatch, wg); rc != 0) {
        int32_t expected = 0;
        failure.compare_exchange_strong(expected, rc);
        return;  // this chunk stops; other chunks finish their current group and check below
      }
      if (failure.load(std::memory_order_relaxed) != 0) return;
    }
  });
  return failure.load();
}

// One launch, marshalled: everything the kernel reads, owned, so it can run after launch() returns.
struct LaunchWork {
  tg_program* program;
  std::vector<void*> buffers;
  std::vector<int64_t> scalars;
  uint32_t num_groups[3];
  uint32_t group_size[3];
};

// A compiled kernel trusts its caller as C does; the interpreter checks that every parameter its
// program reads was passed.
tg_error* CheckUopsArgs(const tg_program& program, const LaunchWork& work) {
  if (program.uops == nullptr) return nullptr;
  const uops::UopKernel& k = *program.uops;
  if (work.buffers.size() >= k.buffers_needed() && work.scalars.size() >= k.scalars_needed()) return nullptr;
  return Invalid("tg-uops kernel '" + k.entry() + "' reads " + std::to_string(k.buffers_needed()) + " buffer(s) and " +
                 std::to_string(k.scalars_needed()) + " scalar(s); the launch passes " +
                 std::to_string(work.buffers.size()) + " and " + std::to_string(work.scalars.size()));
}

// Runs |work| on its device's pool, reports a kernel failure to the device (for stream_sync) and
// to |event| (may be NULL).
void RunLaunch(const LaunchWork& work, EventState* event) {
  tg_c_dispatch_state dispatch{};
  dispatch.struct_size = sizeof dispatch;
  for (int d = 0; d < 3; ++d) {
    dispatch.num_groups[d] = work.num_groups[d];
    dispatch.group_size[d] = work.group_size[d];
  }
  dispatch.num_buffers = static_cast<uint32_t>(work.buffers.size());
  dispatch.num_scalars = static_cast<uint32_t>(work.scalars.size());
  dispatch.buffers = work.buffers.data();
  dispatch.scalars = work.scalars.data();

  // The clock is read only for an event, which is what reports the times (PROFILE, DEBUG=2).
  uint64_t start = event != nullptr ? MonotonicNs() : 0;
  int32_t rc = RunGroups(PoolOf(work.program->device), *work.program, dispatch);
  uint64_t end = event != nullptr ? MonotonicNs() : 0;
  if (rc == 0) {
    CompleteEvent(event, start, end);
    return;
  }
  std::string message = "kernel '" + work.program->entry + "' returned " + std::to_string(rc);
  RecordAsyncError(work.program->device, TG_CODE_INTERNAL, message);
  CompleteEvent(event, start, end, TG_CODE_INTERNAL, message);
}

}  // namespace

tg_error* Launch(const tg_launch_args* raw) {
  if (raw == nullptr) return Invalid("NULL args");
  tg_launch_args a = ReadSized(raw);
  if (a.program == nullptr) return Invalid("NULL program");
  if (a.stream != nullptr) return Invalid("the CPU plugin has only the default (NULL) stream");
  for (int d = 0; d < 3; ++d) {
    if (a.num_groups[d] == 0 || a.group_size[d] == 0) {
      return Invalid("num_groups and group_size must be >= 1 in every dimension");
    }
  }
  DeviceQueue& queue = a.program->device->queue;
  std::shared_ptr<EventState> event;
  auto fill = [&](LaunchWork& work) -> tg_error* {
    work.program = a.program;
    if (tg_error* e = MarshalArgs(a, &work.buffers, &work.scalars)) return e;
    if (tg_error* e = CheckUopsArgs(*a.program, work)) return e;
    for (int d = 0; d < 3; ++d) {
      work.num_groups[d] = a.num_groups[d];
      work.group_size[d] = a.group_size[d];
    }
    event = NewEvent(a.out_done, (a.flags & TG_LAUNCH_PROFILE) != 0);
    return nullptr;
  };
  if (!queue.queues()) {
    // The fast path: no task object, no handoff, and this thread's argument arrays reused (a
    // kernel never launches, so nothing else uses them while it runs).
    thread_local LaunchWork scratch;
    scratch.buffers.clear();
    scratch.scalars.clear();
    if (tg_error* e = fill(scratch)) return e;
    RunLaunch(scratch, event.get());
    return nullptr;
  }
  LaunchWork work;
  if (tg_error* e = fill(work)) return e;
  queue.Submit([work = std::move(work), event = std::move(event)] { RunLaunch(work, event.get()); });
  return nullptr;
}

tg_error* StreamSync(tg_device* device, tg_stream* stream) {
  if (device == nullptr) return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: NULL device");
  if (stream != nullptr) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "stream_sync: the CPU plugin has only the default stream");
  }
  device->queue.Drain();
  return TakeAsyncError(device);
}

}  // namespace tg_cpu
