// cold_start.h: W8, the first forward / first training step of W5's MLP in a fresh process with an
// empty compile cache. The suite re-runs its own binary in --cold mode with TG_CACHE_DIR pointed at
// a new temporary directory, once per timed run, and reads the child's figure from its stdout.
#ifndef TG_TOOLS_BENCH_COLD_START_H_
#define TG_TOOLS_BENCH_COLD_START_H_

#include <string>

#include <benchmark/benchmark.h>

namespace tg::bench {

// The kinds --cold accepts.
inline constexpr char kColdForward[] = "mlp_forward";
inline constexpr char kColdStep[] = "mlp_step";

// Child mode: builds the MLP (and Adam state, input, labels), realized, then times the first forward
// or step and prints "cold_ms <ms>" on stdout. Returns the exit status.
int RunColdChild(const std::string& kind, const std::string& device);

// Parent side (one benchmark): spawns the children, first run + |warmup| - 1 + one per iteration.
void RunColdStart(benchmark::State& state, const std::string& device, int warmup, const std::string& kind);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_COLD_START_H_
