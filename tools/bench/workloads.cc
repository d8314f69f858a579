#include "tools/bench/workloads.h"

#include "ir/error.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/cold_start.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

using Fn = std::function<void(benchmark::State&, const std::string&, int)>;

constexpr OcrModel kOcrDet = {"W11_ocr_det", "ch_PP-OCRv4_det_infer.onnx", "det_input.pb"};
constexpr OcrModel kOcrCls = {"W11_ocr_cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "cls_input.pb"};

// Reps and warm-up follow the torch peers (bench_torch.py, peers_torch.py): 5 / 1 by default, W5 20 / 3,
// W6 10 / 2, W9 10 / 3, W10 20 / 3; W11 10 / 2 as peer_ort.mjs; W12 5 / 2 as peer_llm.py.
Workload Make(std::string name, std::string description, int reps, int warmup, Fn fn) {
  return Workload{std::move(name), std::move(description), reps, warmup,
                  [fn = std::move(fn), warmup](benchmark::State& s, const std::string& d) { fn(s, d, warmup); }};
}

std::vector<Workload> BuildTable() {
  return {
      Make("W1_matmul_1024", "C = A @ B, 1024x1024 fp32 (GFLOP/s = 2N^3/t)", 5, 1,
           [](auto& s, auto& d, int w) { RunMatmul(s, d, w, 1024); }),
      Make("W1_matmul_2048", "C = A @ B, 2048x2048 fp32 (GFLOP/s = 2N^3/t)", 5, 1,
           [](auto& s, auto& d, int w) { RunMatmul(s, d, w, 2048); }),
      Make("W2_gelu_bcast", "gelu_tanh(x * a + b), x 4096x4096, a b (4096,) (GB/s, x in + y out)", 5, 1, RunGeluBcast),
      Make("W3a_sum_64M", "sum of 64M floats to a scalar (GB/s)", 5, 1, RunSum),
      Make("W3b_softmax_4096", "row softmax of 4096x4096 (GB/s, in + out)", 5, 1, RunSoftmax),
      Make("W4_conv2d", "conv2d 8x64x56x56 * 64x64x3x3, pad 1 (GFLOP/s)", 5, 1, RunConv2d),
      Make("W5_mlp_train", "MLP 784-512-512-10 train step, batch 128, CE, Adam (steps/s)", 20, 3, RunMlpTrain),
      Make("W5_mlp_train_jit", "W5's step under tg::Jit, timed replays (steps/s)", 20, 3, RunMlpTrainJit),
      Make("W6_transformer_fb", "pre-LN block B8 T128 d256 h4 ff1024 fwd+bwd (ms/iter)", 10, 2, RunBlockFwdBwd),
      Make("W7_dispatch", "1000 sequential x = x + 1 on 16 floats, each realized (us/op)", 5, 1, RunDispatch),
      Make("W7_dispatch_jit", "W7 with x + 1 in a tg::Jit, 1000 replays, each realized (us/op)", 5, 1,
           RunDispatchJit),
      Make("W8a_cold_mlp_forward", "first W5 forward, fresh process, empty cache (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdStart(s, d, w, "W8a_cold_mlp_forward", kColdForward); }),
      Make("W8b_cold_mlp_step", "first W5 training step, fresh process, empty cache (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdStart(s, d, w, "W8b_cold_mlp_step", kColdStep); }),
      Make("W8c_cold_ocr_det_saved_jit", "PP-OCRv4 det first inference from a saved tg::Jit, fresh process (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdSavedJit(s, d, w, kOcrDet); }),
      Make("W8d_cold_ocr_det", "PP-OCRv4 det loaded from .onnx and run once, fresh process, empty cache (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdOnnx(s, d, w, "W8d_cold_ocr_det", kOcrDet); }),
      Make("W8f_cold_ocr_cls", "PP-OCR cls loaded from .onnx and run once, fresh process, empty cache (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdOnnx(s, d, w, "W8f_cold_ocr_cls", kOcrCls); }),
      Make("W8e_cold_cnn_step", "first W9 (Fashion-MNIST CNN) training step, fresh process, empty cache (ms)", 5, 1,
           [](auto& s, auto& d, int w) { RunColdStart(s, d, w, "W8e_cold_cnn_step", kColdCnnStep); }),
      Make("W9_cnn_train", "apps/mnist_cnn.h train step under tg::Jit, batch 128, Adam (steps/s)", 10, 3,
           RunCnnTrain),
      Make("W10_gpt_train", "apps/gpt train step under tg::Jit, README config, batch 16 x 64 (tokens/s)", 20, 3,
           RunGptTrain),
      Make("W11_ocr_det", "PP-OCRv4 text detector (ONNX) on a 1x3x96x288 text line (ms)", 10, 2,
           [](auto& s, auto& d, int w) { RunOcr(s, d, w, kOcrDet, OcrRun::kPlain); }),
      Make("W11_ocr_det_jit", "W11's detector under tg::Jit, timed replays (ms)", 10, 2,
           [](auto& s, auto& d, int w) { RunOcr(s, d, w, kOcrDet, OcrRun::kJit); }),
      Make("W11_ocr_cls", "PaddleOCR direction classifier (ONNX) on 2x3x48x192 (ms)", 10, 2,
           [](auto& s, auto& d, int w) { RunOcr(s, d, w, kOcrCls, OcrRun::kPlain); }),
      Make("W11_ocr_cls_jit", "W11's classifier under tg::Jit, timed replays (ms)", 10, 2,
           [](auto& s, auto& d, int w) { RunOcr(s, d, w, kOcrCls, OcrRun::kJit); }),
      Make("W13_gpt2_decode", "random GPT-2 layout (4 layers, width 256), 200 greedy tokens under one tg::Jit "
           "(tokens/s; kernels compiled after the first token)", 5, 1, RunGpt2Decode),
      Make("W12_memcpy", "host memcpy of 256 MiB, all cores, read + write (GB/s); W12's decode bounds", 5, 1,
           RunMemcpy),
      Make("W12_llm_decode_fp32", "random LLaMA 110M shape, fp32: 32 greedy tokens after 32 (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmDecode(s, d, w, LlmWeights::kFp32); }),
      Make("W12_llm_prefill_fp32", "W12's model, fp32: a 128-token prompt (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmPrefill(s, d, w, LlmWeights::kFp32); }),
      Make("W12_llm_decode_f16", "W12's decode from the F16 GGUF (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmDecode(s, d, w, LlmWeights::kF16); }),
      Make("W12_llm_prefill_f16", "W12's prefill from the F16 GGUF (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmPrefill(s, d, w, LlmWeights::kF16); }),
      Make("W12_llm_decode_q8_0", "W12's decode from the Q8_0 GGUF (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmDecode(s, d, w, LlmWeights::kQ8_0); }),
      Make("W12_llm_prefill_q8_0", "W12's prefill from the Q8_0 GGUF (tokens/s)", 5, 2,
           [](auto& s, auto& d, int w) { RunLlmPrefill(s, d, w, LlmWeights::kQ8_0); }),
  };
}

}  // namespace

const std::vector<Workload>& AllWorkloads() {
  static const auto* table = new std::vector<Workload>(BuildTable());
  return *table;
}

void RegisterWorkloads(const std::vector<std::string>& devices, int reps) {
  for (const std::string& device : devices) {
    for (const Workload& w : AllWorkloads()) {
      auto body = [&w, device](benchmark::State& state) {
        try {
          ScopedDefaultDevice on(device);  // where the tg::nn layers put their parameters
          w.run(state, device);
        } catch (const std::exception& e) {  // one broken workload must not end the suite
          state.SkipWithError(e.what());
        }
      };
      benchmark::RegisterBenchmark((w.name + "/" + device).c_str(), body)
          ->Iterations(reps > 0 ? reps : w.reps)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace tg::bench
