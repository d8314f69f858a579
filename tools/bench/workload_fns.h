// workload_fns.h: the body of each workload (internal to //tools/bench; workloads.cc tables them).
// Each builds its inputs realized, times runs with TimeRuns and reports with Publish.
#ifndef TG_TOOLS_BENCH_WORKLOAD_FNS_H_
#define TG_TOOLS_BENCH_WORKLOAD_FNS_H_

#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

namespace tg::bench {

// kernel_workloads.cc
void RunMatmul(benchmark::State& state, const std::string& device, int warmup, int64_t n);   // W1
void RunGeluBcast(benchmark::State& state, const std::string& device, int warmup);          // W2
void RunSum(benchmark::State& state, const std::string& device, int warmup);                // W3a
void RunSoftmax(benchmark::State& state, const std::string& device, int warmup);            // W3b
void RunConv2d(benchmark::State& state, const std::string& device, int warmup);             // W4
void RunDispatch(benchmark::State& state, const std::string& device, int warmup);           // W7
void RunDispatchJit(benchmark::State& state, const std::string& device, int warmup);        // W7, tg::Jit replays
// training_workloads.cc
void RunMlpTrain(benchmark::State& state, const std::string& device, int warmup);           // W5
void RunMlpTrainJit(benchmark::State& state, const std::string& device, int warmup);        // W5 under tg::Jit
void RunBlockFwdBwd(benchmark::State& state, const std::string& device, int warmup);        // W6
// app_workloads.cc
void RunCnnTrain(benchmark::State& state, const std::string& device, int warmup);           // W9, tg::Jit
void RunGptTrain(benchmark::State& state, const std::string& device, int warmup);           // W10, tg::Jit
void RunGpt2Decode(benchmark::State& state, const std::string& device, int warmup);         // W13, tg::Jit + Variable
// ocr_workloads.cc
struct OcrModel {
  const char* name;        // the workload: "W11_ocr_det"
  const char* model_file;  // in the model cache tools/setup.sh fills
  const char* input_file;  // in tests/onnx/paddleocr/
};
enum class OcrRun { kPlain, kJit };  // model.run per call, or under tg::Jit (timed replays)
void RunOcr(benchmark::State& state, const std::string& device, int warmup, const OcrModel& model, OcrRun how);  // W11
std::string OcrModelPath(const OcrModel& model);  // where the model file is (maybe absent)
std::string OcrInputPath(const OcrModel& model);  // the checked-in input; "" when not found
// llm_workloads.cc (W12)
enum class LlmWeights { kFp32, kF16, kQ8_0 };  // the HF folder's float32, the F16 and the Q8_0 GGUF file
void RunLlmDecode(benchmark::State& state, const std::string& device, int warmup, LlmWeights weights);
void RunLlmPrefill(benchmark::State& state, const std::string& device, int warmup, LlmWeights weights);
// The host's copy bandwidth (W12_memcpy) and, from it, each format's decode bound in tokens/s.
void RunMemcpy(benchmark::State& state, const std::string& device, int warmup);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_WORKLOAD_FNS_H_
