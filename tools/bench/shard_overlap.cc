// shard_overlap: do the shards of one op run side by side on the CPU plugin's devices?
// (plugins/cpu/device_queue.h). A batch-sharded matmul and a sharded elementwise chain, timed per
// realize (the shards' results stay on their devices: each device is synchronized, nothing is gathered).
// Compare queued devices with inline ones in two processes (both settings are read when the plugin loads):
//   TG_CPU_DEVICES=2 ./bazelw run -c opt //tools/bench:shard_overlap
//   TG_CPU_DEVICES=2 TG_CPU_ASYNC=0 ./bazelw run -c opt //tools/bench:shard_overlap
//   TG_CPU_DEVICES=1 ./bazelw run -c opt //tools/bench:shard_overlap -- --devices=1
// Prints the median of --runs realizes per op. No assertions: a measurement, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "runtime/device.h"
#include "frontend/tg.h"

namespace {

// Median milliseconds of |runs| calls of |step| after two warm-up calls (compile, first allocation).
double MedianMs(int runs, const std::function<void()>& step) {
  std::vector<double> ms;
  for (int r = 0; r < runs + 2; ++r) {
    auto start = std::chrono::steady_clock::now();
    step();
    double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r >= 2) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Realizes |t| and waits for every device it lives on (to_vector would gather through one device).
// Adds the time realize() took to |enqueue_ms|: with queued devices that is only the host's share,
// the kernels run (side by side) until the synchronize.
void RealizeAndWait(tg::Tensor t, double* enqueue_ms) {
  auto start = std::chrono::steady_clock::now();
  t.realize();
  *enqueue_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const std::string& d : t.devices()) tg::compiler::ThrowIfError(tg::compiler::DeviceNamed(d).Synchronize());
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 2, runs = 21;
  int64_t n = 2048;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--devices=", 10) == 0) devices = std::atoi(argv[i] + 10);
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::atoi(argv[i] + 7);
    if (std::strncmp(argv[i], "--n=", 4) == 0) n = std::atoll(argv[i] + 4);
  }
  std::vector<std::string> names;
  for (int d = 0; d < devices; ++d) names.push_back("CPU:" + std::to_string(d));
  tg::Tensor::manual_seed(1);
  tg::Tensor x = tg::Tensor::randn({n, 512}, tg::dtypes::float32, "CPU");
  tg::Tensor w = tg::Tensor::randn({512, 512}, tg::dtypes::float32, "CPU");
  tg::Tensor e = tg::Tensor::randn({n, 4096}, tg::dtypes::float32, "CPU");
  if (devices > 1) x = x.shard(names, 0), w = w.shard(names), e = e.shard(names, 0);
  x.realize(), w.realize(), e.realize();
  const char* queued = getenv("TG_CPU_ASYNC");
  std::printf("shard_overlap devices=%d TG_CPU_ASYNC=%s\n", devices, queued ? queued : "(unset)");
  double enqueue_ms = 0;
  double mm = MedianMs(runs, [&] { RealizeAndWait(x.matmul(w), &enqueue_ms); });
  std::printf("  matmul      %lldx512 @ 512x512   median %8.2f ms  %7.2f GFLOP/s  (realize() returned after %.2f ms)\n",
              static_cast<long long>(n), mm, 2.0 * n * 512 * 512 / (mm * 1e6), enqueue_ms / (runs + 2));
  enqueue_ms = 0;
  double ew = MedianMs(runs, [&] { RealizeAndWait((e * 1.5f + 0.5f).gelu().exp(), &enqueue_ms); });
  std::printf("  elementwise gelu(x*a+b).exp() %lldx4096  median %8.2f ms  %7.2f GB/s  (realize() returned after %.2f ms)\n",
              static_cast<long long>(n), ew, 2.0 * n * 4096 * 4 / (ew * 1e6), enqueue_ms / (runs + 2));
  return 0;
}
