// device_queue.h: a CPU device's in-order work queue (the ABI's default stream), run by the device's
// own worker thread, so that work enqueued on two devices (shards of one op) runs side by side.
//
// Whether a device queues at all is decided once per process (TG_CPU_ASYNC, see QueuesWork): with one
// device there is nothing to overlap with (its kernels already use every core, the calling thread
// included), so handing each kernel to another thread would only add latency (tools/bench W7); work
// then runs inline on the calling thread, which is exactly an in-order queue that is always empty.
#ifndef TG_PLUGINS_CPU_DEVICE_QUEUE_H_
#define TG_PLUGINS_CPU_DEVICE_QUEUE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace tg_cpu {

// TG_CPU_ASYNC=1 queues work on every device, =0 runs everything inline; unset: queue when the
// plugin presents several devices (TG_CPU_DEVICES > 1). Read once.
bool QueuesWork();

class DeviceQueue {
 public:
  using Task = std::function<void()>;

  DeviceQueue() : queues_(QueuesWork()) {}
  ~DeviceQueue();  // runs what is still queued, then stops the worker
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;

  // Whether Submit hands work to the worker thread (false: it runs inline).
  bool queues() const { return queues_; }
  // Runs |task| after everything submitted before it: on the worker thread, or now when !queues().
  // A task must not throw (it reports failures through the device and its event).
  void Submit(Task task);
  // Blocks until everything submitted before this call has run.
  void Drain();
  // Submits |task| and returns true when work is still queued or running (so |task| must wait its
  // turn); returns false without taking |task| when the queue is idle and the caller may act now.
  bool DeferIfBusy(Task& task);

 private:
  void StartWorkerLocked();
  void WorkerLoop();
  // Called by the worker with the queue empty: polls for new work for a few microseconds before the
  // worker goes to sleep, because the host enqueues kernels a few microseconds apart and waking a
  // sleeping thread costs more than that (tools/bench W7 with TG_CPU_DEVICES=2).
  void SpinForWork() const;

  const bool queues_;
  std::mutex mu_;  // guards everything below, except that submitted_ may also be read without it
  std::condition_variable work_cv_, done_cv_;
  std::deque<Task> tasks_;
  // Tickets: task k is done when completed_ >= k. submitted_ is atomic for SpinForWork's polling.
  std::atomic<uint64_t> submitted_{0};
  uint64_t completed_ = 0;
  bool stop_ = false;
  bool worker_sleeping_ = false;  // in work_cv_.wait: only then does Submit pay for a wake-up
  std::thread worker_;            // started by the first submitted task
};

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_DEVICE_QUEUE_H_
