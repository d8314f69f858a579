// shard_matmul: a data-parallel matmul (batch split over the CPU plugin's devices) against the same
// matmul on one device. Run once per device count; each run is its own process because
// TG_CPU_DEVICES is read when the plugin loads:
//   TG_CPU_DEVICES=1 ./bazelw run -c opt //tools/bench:shard_matmul -- --devices=1
//   TG_CPU_DEVICES=2 ./bazelw run -c opt //tools/bench:shard_matmul -- --devices=2
// Prints the median time of --runs realizes and GFLOP/s. With N devices each has 1/N of the cores,
// so on one machine the figure measures the SPMD overhead, not a speedup from more hardware.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "frontend/tg.h"

int main(int argc, char** argv) {
  int devices = 1, runs = 15;
  int64_t n = 1024, k = 512, m = 512;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--devices=", 10) == 0) devices = std::atoi(argv[i] + 10);
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::atoi(argv[i] + 7);
    if (std::strncmp(argv[i], "--n=", 4) == 0) n = std::atoll(argv[i] + 4);
  }
  std::vector<std::string> names;
  for (int d = 0; d < devices; ++d) names.push_back("CPU:" + std::to_string(d));
  tg::Tensor::manual_seed(1);
  tg::Tensor x = tg::Tensor::randn({n, k}, tg::dtypes::float32, "CPU");
  tg::Tensor w = tg::Tensor::randn({k, m}, tg::dtypes::float32, "CPU");
  if (devices > 1) {
    x = x.shard(names, 0);  // data parallel: each device multiplies its rows
    w = w.shard(names);     // the weight on every device
  }
  x.realize(), w.realize();
  std::vector<double> ms;
  for (int r = 0; r < runs + 2; ++r) {
    auto start = std::chrono::steady_clock::now();
    tg::Tensor y = x.matmul(w);
    y.realize();
    if (devices > 1) y.to("CPU").realize();  // the gather is part of the cost
    double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r >= 2) ms.push_back(t);  // the first two compile and warm up
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  std::printf("shard_matmul devices=%d (%lldx%lld @ %lldx%lld): median %.2f ms over %d runs, %.2f GFLOP/s\n", devices,
              static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(k),
              static_cast<long long>(m), median, runs, 2.0 * n * k * m / (median * 1e6));
  return 0;
}
