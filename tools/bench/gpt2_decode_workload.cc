// W13: GPT-2 decode through the KV cache under one tg::Jit capture, the position a tg::Variable: tokens/s
// over 200 greedy steps, and how many kernels compiled after the first token (the target is none).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/gpt2_model.h"
#include "frontend/tg.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

// A random model of GPT-2's layout, small enough for a CI machine: 4 layers, width 256, 4 heads.
constexpr int64_t kLayers = 4, kDim = 256, kHeads = 4, kVocab = 4096, kContext = 256;
constexpr int kTokens = 200;

nn::StateDict RandomGpt2() {
  Tensor::manual_seed(1337);
  nn::StateDict sd;
  auto add = [&](const std::string& name, const Shape& shape) {
    sd.insert_or_assign(name, (Tensor::randn(shape) * 0.02f).realize());
  };
  add("wte.weight", {kVocab, kDim});
  add("wpe.weight", {kContext, kDim});
  add("ln_f.weight", {kDim});
  add("ln_f.bias", {kDim});
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "h." + std::to_string(i) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) add(p + ln + ".weight", {kDim}), add(p + ln + ".bias", {kDim});
    add(p + "attn.c_attn.weight", {kDim, 3 * kDim});
    add(p + "attn.c_attn.bias", {3 * kDim});
    add(p + "attn.c_proj.weight", {kDim, kDim});
    add(p + "attn.c_proj.bias", {kDim});
    add(p + "mlp.c_fc.weight", {kDim, 4 * kDim});
    add(p + "mlp.c_fc.bias", {4 * kDim});
    add(p + "mlp.c_proj.weight", {4 * kDim, kDim});
    add(p + "mlp.c_proj.bias", {kDim});
  }
  return sd;
}

// The greedy choice: the first of the largest logits.
int Argmax(const std::vector<float>& v) { return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin()); }

}  // namespace

void RunGpt2Decode(benchmark::State& state, const std::string& device, int warmup) {
  ScopedDefaultDevice on(device);  // the model's weights and cache go to |device|
  apps::Gpt2 model(RandomGpt2(), kHeads);
  uint64_t compiled_after_first = 0;
  auto run = [&] {  // one token untimed (it compiles in the first run), then kTokens - 1 greedy steps timed
    model.ResetCache();
    int token = Argmax(model.Step(0));
    const uint64_t made = programs_made(device);
    auto start = std::chrono::steady_clock::now();
    for (int i = 1; i < kTokens; ++i) token = Argmax(model.Step(token));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    compiled_after_first += programs_made(device) - made;
    return seconds;
  };
  Timed t = TimeSelfTimedRuns(state, run, std::max(warmup, 1));
  state.SetLabel(std::to_string(kTokens) + " tokens per run; kernels compiled after the first token, all runs: " +
                 std::to_string(compiled_after_first));
  Publish(state, "W13_gpt2_decode", device, t, (kTokens - 1) / t.median_s, "tokens/s");
  PublishSamples("W13_gpt2_decode_compiles", device, {static_cast<double>(compiled_after_first)}, "kernels");
}

}  // namespace tg::bench
