// task_pool.cc: a locked queue and threads that drain it.
#include "runtime/task_pool.h"

#include <algorithm>

namespace tg::runtime {

TaskPool::TaskPool(unsigned threads) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) threads_.emplace_back([this] { Loop(); });
}

TaskPool::~TaskPool() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void TaskPool::Run(std::function<void()> task) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(task));
}

void TaskPool::Loop() {
  for (;;) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &TaskPool::HasWorkOrStops));
      if (queue_.empty()) return;  // stopping, and nothing is left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

bool TaskPool::HasWorkOrStops() const { return stop_ || !queue_.empty(); }

TaskPool& TaskPool::Compiles() {
  static TaskPool* pool = new TaskPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

}  // namespace tg::runtime
