// thread_pool.h: the CPU plugin's persistent worker pool that runs a launch's workgroups.
// One pool per process, created on the first launch; threads live until exit.
#ifndef TG_PLUGINS_CPU_THREAD_POOL_H_
#define TG_PLUGINS_CPU_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tg_cpu {

class ThreadPool {
 public:
  // |num_workers| counts the calling thread: the pool starts num_workers - 1 threads and the
  // caller of ParallelFor works as worker 0, so a 1-worker pool runs everything inline.
  explicit ThreadPool(uint32_t num_workers);
  ~ThreadPool();  // joins the threads; must not run concurrently with ParallelFor
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Splits [0, total) into at most num_workers() contiguous chunks and calls
  // body(begin, end, worker_id) once per non-empty chunk, each on its own worker; returns when all
  // are done. Calls from several threads are serialized (one launch at a time owns every core).
  using Body = std::function<void(uint64_t begin, uint64_t end, uint32_t worker_id)>;
  void ParallelFor(uint64_t total, const Body& body);

  uint32_t num_workers() const { return num_workers_; }

  // The process-wide pool, sized to the machine's cores (leaked on purpose: kernels may still be
  // running on detached host threads during static destruction).
  static ThreadPool& Global();
  // The pool of CPU device |ordinal| when the plugin presents several (TG_CPU_DEVICES): sized to
  // that device's share of the cores; created on first use and leaked like Global(). Its worker 0
  // is the device's queue thread (device_queue.h), so devices' pools run side by side.
  static ThreadPool& ForDevice(uint32_t ordinal, uint32_t num_workers);

 private:
  void WorkerLoop(uint32_t worker_id);
  static void RunChunk(const Body& body, uint64_t total, uint32_t chunks, uint32_t index);

  const uint32_t num_workers_;
  std::vector<std::thread> threads_;
  std::mutex launch_mu_;  // serializes ParallelFor callers

  std::mutex mu_;  // guards everything below; the two atomics are written under it too
  std::condition_variable work_cv_, done_cv_;
  // Atomic so that a worker waiting for the next launch, and the caller waiting for the last chunk,
  // can watch them for a moment without the lock before they sleep (Spin in thread_pool.cc).
  std::atomic<uint64_t> generation_ = 0;
  const Body* body_ = nullptr;
  uint64_t total_ = 0;
  uint32_t chunks_ = 0;
  std::atomic<uint32_t> pending_ = 0;
  bool stop_ = false;
};

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_THREAD_POOL_H_
