// cold_start.h: W8, first calls in a fresh process with an empty compile cache: W5's MLP's first forward
// (W8a) and training step (W8b), PP-OCRv4 det's first inference from a saved tg::Jit (W8c) and from the
// .onnx file, load included (W8d), and the Fashion-MNIST CNN's first training step (W8e). The suite re-runs
// its own binary in --cold mode with TG_CACHE_DIR pointed at a new temporary directory, once per timed run,
// and reads the child's figure from its stdout.
#ifndef TG_TOOLS_BENCH_COLD_START_H_
#define TG_TOOLS_BENCH_COLD_START_H_

#include <string>

#include <benchmark/benchmark.h>

namespace tg::bench {

// The kinds --cold accepts.
inline constexpr char kColdForward[] = "mlp_forward";
inline constexpr char kColdStep[] = "mlp_step";
inline constexpr char kColdSavedJit[] = "saved_jit";  // the file and input come in TG_COLD_JIT / TG_COLD_INPUT
inline constexpr char kColdOnnx[] = "onnx";            // the model and input come in TG_COLD_MODEL / TG_COLD_INPUT
inline constexpr char kColdCnnStep[] = "cnn_step";

struct OcrModel;

// Child mode: prints "cold_ms <ms>" on stdout and returns the exit status. What a deployment or a training
// script has before its first call (the model's parameters and optimizer state, the input, the labels) is
// realized before the timer; the timer covers the first forward or step (kColdForward, kColdStep,
// kColdCnnStep), Jit::load and the first call, which must compile nothing (kColdSavedJit), or
// onnx::load and the first run (kColdOnnx).
int RunColdChild(const std::string& kind, const std::string& device);

// The TG_TIER a cold child runs with (docs/tiers.md): what the user gave the bench, else "auto", as a
// user's fresh process would. The bench's own warm figures run the optimized tier.
void SetColdChildTier(const std::string& tier);

// Parent side (one benchmark |name|): spawns the children of |kind|, first run + |warmup| - 1 + one per
// iteration.
void RunColdStart(benchmark::State& state, const std::string& device, int warmup, const std::string& name,
                  const std::string& kind);

// W8d (PP-OCRv4 det) and W8f (PP-OCR cls): the model loaded from its .onnx file and run once, in fresh children.
void RunColdOnnx(benchmark::State& state, const std::string& device, int warmup, const std::string& name,
                 const OcrModel& model);

// W8c (PP-OCRv4 det): saves |model|'s Jit once (in this process, compiling it), then times fresh children loading it.
void RunColdSavedJit(benchmark::State& state, const std::string& device, int warmup, const OcrModel& model);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_COLD_START_H_
