// workloads.h: the suite (W1-W12, defined in docs/benchmarks.md) as Google Benchmark cases, one per
// (workload, device), named "<workload>/<device>" (e.g. "W1_matmul_1024/CPU"). Workload names match
// the PyTorch peer's JSON keys so RESULTS.md can pair them.
#ifndef TG_TOOLS_BENCH_WORKLOADS_H_
#define TG_TOOLS_BENCH_WORKLOADS_H_

#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace tg::bench {

struct Workload {
  std::string name;         // "W1_matmul_1024"
  std::string description;  // what is computed (docs/benchmarks.md's table)
  int reps;                 // timed runs unless --reps overrides (the torch peer's counts)
  int warmup;               // untimed calls including the first, as the peer's bench(warmup=)
  std::function<void(benchmark::State&, const std::string& device)> run;
};

// W1-W12 in order.
const std::vector<Workload>& AllWorkloads();

// Registers every workload for every device; |reps| > 0 replaces each workload's own count.
void RegisterWorkloads(const std::vector<std::string>& devices, int reps);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_WORKLOADS_H_
