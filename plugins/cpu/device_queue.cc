// device_queue.cc: one worker thread per device draining a FIFO of tasks, with ticket counters so
// a waiter knows when everything before it is done.
#include "plugins/cpu/device_queue.h"

#include <sched.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <utility>

#include "plugins/cpu/cpu_device.h"

namespace tg_cpu {

bool QueuesWork() {
  static const bool queues = [] {
    const char* v = getenv("TG_CPU_ASYNC");
    if (v != nullptr && *v != '\0') return std::strcmp(v, "0") != 0;
    return DeviceCount() > 1;
  }();
  return queues;
}

DeviceQueue::~DeviceQueue() {
  Drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void DeviceQueue::StartWorkerLocked() {
  if (!worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
}

void DeviceQueue::Submit(Task task) {
  if (!queues_) {
    task();
    return;
  }
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartWorkerLocked();
    tasks_.push_back(std::move(task));
    submitted_.fetch_add(1, std::memory_order_release);
    wake = worker_sleeping_;
  }
  if (wake) work_cv_.notify_one();
}

void DeviceQueue::Drain() {
  if (!queues_) return;
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t ticket = submitted_.load(std::memory_order_relaxed);
  done_cv_.wait(lock, [&] { return completed_ >= ticket; });
}

bool DeviceQueue::DeferIfBusy(Task& task) {
  if (!queues_) return false;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (completed_ == submitted_.load(std::memory_order_relaxed)) return false;
    tasks_.push_back(std::move(task));
    submitted_.fetch_add(1, std::memory_order_release);
    wake = worker_sleeping_;
  }
  if (wake) work_cv_.notify_one();
  return true;
}

void DeviceQueue::SpinForWork() const {
  constexpr uint64_t kSpinNs = 30000;
  const uint64_t seen = completed_;  // only the worker writes it, so it may read it unlocked
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(kSpinNs);
  while (submitted_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < deadline) {
    sched_yield();  // let the host thread (and the other devices) have this core meanwhile
  }
}

void DeviceQueue::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (tasks_.empty() && !stop_) {
      lock.unlock();
      SpinForWork();
      lock.lock();
    }
    worker_sleeping_ = true;
    work_cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
    worker_sleeping_ = false;
    if (tasks_.empty()) return;  // stop_ and nothing left
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // destroy what it captured before waiters see it done
    lock.lock();
    ++completed_;
    done_cv_.notify_all();
  }
}

}  // namespace tg_cpu
