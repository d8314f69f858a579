// cold_start.h: W8, the first forward / first training step of W5's MLP in a fresh process with an
// empty compile cache, and W8c, PP-OCRv4 det's first inference from a saved tg::Jit in a fresh process. The suite re-runs its own binary in --cold mode with TG_CACHE_DIR pointed at
// a new temporary directory, once per timed run, and reads the child's figure from its stdout.
#ifndef TG_TOOLS_BENCH_COLD_START_H_
#define TG_TOOLS_BENCH_COLD_START_H_

#include <string>

#include <benchmark/benchmark.h>

namespace tg::bench {

// The kinds --cold accepts.
inline constexpr char kColdForward[] = "mlp_forward";
inline constexpr char kColdStep[] = "mlp_step";
inline constexpr char kColdSavedJit[] = "saved_jit";  // the file and input come in TG_COLD_JIT / TG_COLD_INPUT

struct OcrModel;

// Child mode: builds the MLP (and Adam state, input, labels), realized, then times the first forward
// or step and prints "cold_ms <ms>" on stdout. For kColdSavedJit: realizes the input, then times
// Jit::load and the first call (which must compile nothing). Returns the exit status.
int RunColdChild(const std::string& kind, const std::string& device);

// Parent side (one benchmark): spawns the children, first run + |warmup| - 1 + one per iteration.
void RunColdStart(benchmark::State& state, const std::string& device, int warmup, const std::string& kind);

// W8c (PP-OCRv4 det): saves |model|'s Jit once (in this process, compiling it), then times fresh children loading it.
void RunColdSavedJit(benchmark::State& state, const std::string& device, int warmup, const OcrModel& model);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_COLD_START_H_
