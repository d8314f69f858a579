// thread_pool.cc: generation-counted fork/join over a fixed set of threads.
#include "plugins/cpu/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <chrono>

namespace tg_cpu {
namespace {

// Kernels come in quick succession (a model's small layers, one after another): a thread that
// slept on its condition variable after every one would pay the kernel's wake-up (tens of
// microseconds, and more when the scheduler put both threads on one core) per launch. So a waiting
// thread first watches for what it waits for, for a bounded time, then sleeps as before.
constexpr auto kSpinBudget = std::chrono::microseconds(50);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Whether |ready| became true within the spin budget. Between clock reads the spinner yields: when
// the scheduler has put the waiter and the thread it waits for on one core (it does, for whole
// runs, on a 2-core VM), a spin of pauses alone holds that core for its time slice while the other
// thread's chunk waits, and a training step took 2.6x as long (tools/bench/RESULTS.md).
template <class Ready>
bool Spin(Ready ready) {
  constexpr int kChecksPerClockRead = 64;
  const auto deadline = std::chrono::steady_clock::now() + kSpinBudget;
  for (;;) {
    for (int i = 0; i < kChecksPerClockRead; ++i) {
      if (ready()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
    sched_yield();
  }
}

}  // namespace

ThreadPool::ThreadPool(uint32_t num_workers) : num_workers_(std::max<uint32_t>(1, num_workers)) {
  for (uint32_t i = 1; i < num_workers_; ++i) threads_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

ThreadPool& ThreadPool::Global() {
  static ThreadPool* pool = new ThreadPool(std::max(1u, std::thread::hardware_concurrency()));
  return *pool;
}

ThreadPool& ThreadPool::ForDevice(uint32_t ordinal, uint32_t num_workers) {
  static std::mutex mu;
  static std::vector<ThreadPool*>* pools = new std::vector<ThreadPool*>();
  std::lock_guard<std::mutex> lock(mu);
  if (pools->size() <= ordinal) pools->resize(ordinal + 1, nullptr);
  if ((*pools)[ordinal] == nullptr) (*pools)[ordinal] = new ThreadPool(num_workers);
  return *(*pools)[ordinal];
}

void ThreadPool::RunChunk(const Body& body, uint64_t total, uint32_t chunks, uint32_t index) {
  uint64_t begin = total * index / chunks, end = total * (index + 1) / chunks;
  if (begin < end) body(begin, end, index);
}

void ThreadPool::ParallelFor(uint64_t total, const Body& body) {
  if (total == 0) return;
  std::lock_guard<std::mutex> launch_lock(launch_mu_);
  uint32_t chunks = static_cast<uint32_t>(std::min<uint64_t>(num_workers_, total));
  if (chunks == 1) {  // one group (or one core): no handoff cost
    body(0, total, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = &body;
    total_ = total;
    chunks_ = chunks;
    pending_ = chunks - 1;
    ++generation_;
  }
  work_cv_.notify_all();
  RunChunk(body, total, chunks, 0);
  Spin([this] { return pending_.load(std::memory_order_acquire) == 0; });
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  body_ = nullptr;
}

void ThreadPool::WorkerLoop(uint32_t worker_id) {
  uint64_t seen = 0;
  for (;;) {
    Spin([&] { return generation_.load(std::memory_order_acquire) != seen; });
    std::unique_lock<std::mutex> lock(mu_);
    work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (worker_id >= chunks_) continue;  // fewer chunks than workers this time
    const Body* body = body_;
    uint64_t total = total_;
    uint32_t chunks = chunks_;
    lock.unlock();
    RunChunk(*body, total, chunks, worker_id);
    lock.lock();
    if (--pending_ == 0) done_cv_.notify_one();
  }
}

}  // namespace tg_cpu
