// task_pool.cc: a locked queue and threads that drain it.
#include "runtime/task_pool.h"

#include <algorithm>

#include "runtime/trace_recorder.h"

namespace tg::runtime {

TaskPool::TaskPool(unsigned threads) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { Loop(); });
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void TaskPool::Run(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void TaskPool::Loop() {
  if (Profiling()) TraceRecorder::NameThread("task pool worker");
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing is left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

TaskPool& TaskPool::Compiles() {
  static TaskPool* pool = new TaskPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

}  // namespace tg::runtime
