// task_pool.h: a fixed set of host threads that run independent tasks, for work the host does beside
// the caller (the kernels of one schedule compile on it: Device::GetProgramAsync). Not the CPU
// plugin's launch pool: that one lives in the plugin and runs workgroups.
#ifndef TG_RUNTIME_TASK_POOL_H_
#define TG_RUNTIME_TASK_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tg::runtime {

class TaskPool {
 public:
  explicit TaskPool(unsigned threads);  // at least one
  ~TaskPool();  // runs what is still queued, then joins
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues |task|; tasks start in the order queued, up to threads() at a time. A task must not wait
  // for another task of the same pool (with every thread waiting, nothing would run).
  void Run(std::function<void()> task);
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

  // The pool compiles run on: one thread per core (hardware_concurrency), created on first use and
  // leaked, so a compile still running at exit never meets a destroyed pool.
  static TaskPool& Compiles();

 private:
  void Loop();

  // std::mutex rather than absl::Mutex: the system's Abseil is not built for TSan, so its waits are
  // invisible to --config=tsan, while pthread's are intercepted.
  std::mutex mu_;  // guards queue_ and stop_
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_TASK_POOL_H_
