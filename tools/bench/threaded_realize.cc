// threaded_realize: realizes per second with 1, 2, 4 and 8 threads each building and realizing small
// independent graphs on one device (the use docs/concurrency.md allows). The graphs are those of
// tests/frontend/threaded_realize_test.cc in spirit: elementwise, reduce, matmul, movement, each in a few
// shapes, so after a warm-up every realize hits the schedule and kernel caches and what is measured is the
// host path (graph build, schedule-cache lookup, launch, read back) and how it scales across threads.
//   ./bazelw run -c opt //tools/bench:threaded_realize -- [--device=CPU] [--seconds=2]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "frontend/tg.h"

namespace {

tg::Tensor Graph(int kind, int seed, const std::string& device) {
  int64_t n = 3 + seed % 3, m = 2 + seed % 3;
  std::vector<float> va(static_cast<size_t>(n * m)), vb(va.size());
  for (size_t i = 0; i < va.size(); ++i) va[i] = float((i * 7 + seed) % 13) - 6, vb[i] = float((i * 5 + seed) % 11) - 5;
  tg::Tensor a = tg::Tensor::from_vector<float>(va, tg::Shape{n, m}, device);
  tg::Tensor b = tg::Tensor::from_vector<float>(vb, tg::Shape{n, m}, device);
  switch (kind % 4) {
    case 0: return ((a * b + 1).relu() - a.abs().sqrt()).maximum(b);
    case 1: return a.sum(1) + b.max(0).sum();
    case 2: return a.matmul(b.transpose()) + 0.5f;
    default: return a.permute({1, 0}).reshape({m * n}).pad({{1, 2}}, 0.25).flip(0) * 2;
  }
}

// Realizes per second over |seconds| with |threads| threads.
double Measure(int threads, double seconds, const std::string& device) {
  std::atomic<bool> stop{false};
  std::atomic<long> done{0};
  std::vector<std::thread> pool;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        (void)Graph(t + i, t * 7 + i, device).to_vector<float>();
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (std::thread& th : pool) th.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(done.load()) / elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device;
  double seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--device=", 9) == 0) device = argv[i] + 9;
    else if (std::strncmp(argv[i], "--seconds=", 10) == 0) seconds = std::atof(argv[i] + 10);
    else {
      std::fprintf(stderr, "usage: threaded_realize [--device=NAME] [--seconds=S]\n");
      return 2;
    }
  }
  try {
    if (device.empty()) device = tg::default_device();
    for (int k = 0; k < 4; ++k)  // warm-up: every kernel compiled once
      for (int s = 0; s < 3; ++s) (void)Graph(k, s, device).to_vector<float>();
    std::printf("device %s, %u hardware threads, %.1f s per point\n", device.c_str(),
                std::thread::hardware_concurrency(), seconds);
    std::printf("threads  realizes/s\n");
    for (int threads : {1, 2, 4, 8}) std::printf("%7d  %10.0f\n", threads, Measure(threads, seconds, device));
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "threaded_realize: %s\n", e.what());
    return 1;
  }
  return 0;
}
