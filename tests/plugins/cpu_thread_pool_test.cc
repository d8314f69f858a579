// The CPU plugin's worker pool (plugins/cpu/thread_pool.h): the contract a launch relies on.
#include "plugins/cpu/thread_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tg_cpu {
namespace {

// Runs one launch of |total| indices and checks the contract: each index once, every call a
// non-empty range inside [0, total), worker ids below num_workers(), no two calls on one worker id
// at the same time.
void ExpectEachIndexOnce(ThreadPool& pool, uint64_t total) {
  SCOPED_TRACE(total);
  std::vector<std::atomic<int>> runs(total);
  std::vector<std::atomic<int>> busy(pool.num_workers());
  std::atomic<int> bad_ranges = 0, bad_workers = 0, overlaps = 0;
  pool.ParallelFor(total, [&](uint64_t begin, uint64_t end, uint32_t worker) {
    if (!(begin < end && end <= total)) ++bad_ranges;
    if (worker >= pool.num_workers()) {
      ++bad_workers;
      return;
    }
    if (busy[worker].fetch_add(1) != 0) ++overlaps;
    for (uint64_t i = begin; i < end && i < total; ++i) runs[i].fetch_add(1);
    busy[worker].fetch_sub(1);
  });
  EXPECT_EQ(bad_ranges.load(), 0);
  EXPECT_EQ(bad_workers.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  for (uint64_t i = 0; i < total; ++i) ASSERT_EQ(runs[i].load(), 1) << "index " << i;
}

TEST(CpuThreadPool, EveryIndexRunsOnceOnAWorkerOfItsOwn) {
  for (uint32_t workers : {1u, 2u, 4u}) {
    SCOPED_TRACE(workers);
    ThreadPool pool(workers);
    for (uint64_t total : {0, 1, 2, 3, 7, 8, 9, 31, 64, 1000, 4099}) ExpectEachIndexOnce(pool, total);
  }
}

// Kernels come one after another, each a few microseconds: back-to-back launches, some of them
// finished by the caller before a worker wakes, must neither lose nor repeat work.
TEST(CpuThreadPool, BackToBackLaunchesStayExact) {
  ThreadPool pool(3);
  for (int launch = 0; launch < 2000; ++launch) ExpectEachIndexOnce(pool, 1 + launch % 37);
}

TEST(CpuThreadPool, LaunchesFromSeveralThreadsTakeTurns) {
  ThreadPool pool(2);
  std::atomic<int> inside = 0, overlapping = 0;
  std::atomic<uint64_t> sum = 0;
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int launch = 0; launch < 200; ++launch) {
        std::atomic<uint64_t> launch_sum = 0;
        pool.ParallelFor(100, [&](uint64_t begin, uint64_t end, uint32_t) {
          if (inside.fetch_add(1) >= static_cast<int>(pool.num_workers())) ++overlapping;
          for (uint64_t i = begin; i < end; ++i) launch_sum += i;
          inside.fetch_sub(1);
        });
        sum += launch_sum;
      }
    });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(overlapping.load(), 0) << "more bodies at once than the pool has workers: launches overlapped";
  EXPECT_EQ(sum.load(), uint64_t{4} * 200 * (99 * 100 / 2));
}

}  // namespace
}  // namespace tg_cpu
