// W9 (the Fashion-MNIST CNN's training step) and W10 (the byte GPT's training step): the apps' own models,
// optimizers and jitted steps (apps/fashion_mnist.cc, apps/gpt.cc) at their default flags, on one fixed batch.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "apps/char_gpt.h"
#include "frontend/jit.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/cnn_trainer.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

constexpr int64_t kGptBatch = 16;      // apps/gpt.cc --batch
constexpr double kGptLr = 3e-3;        // --lr
constexpr unsigned kSeed = 1337;       // apps/gpt.cc --seed

std::string LossLabel(float before, float after, size_t kernels) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "loss %.4f -> %.4f, %zu kernels replayed", before, after, kernels);
  return buf;
}

// Times |step| (one jitted training step returning the loss, realized): call 1 runs, call 2 captures,
// so at least three untimed calls make every timed call a replay. Returns the timing; the label gets the
// loss before and after, the cheap evidence that the step trains, and |kernels()| replayed.
template <typename Step, typename Kernels>
Timed TimeJittedStep(benchmark::State& state, const std::string& device, int warmup, Step step,
                     Kernels kernels) {
  float first_loss = 0;
  bool first = true;
  auto run = [&] {
    const Tensor loss = step();
    SyncDevice(device);
    if (first) first_loss = loss.item<float>(), first = false;
  };
  Timed t = TimeRuns(state, run, std::max(warmup, 3));
  const Tensor last_loss = step();
  state.SetLabel(LossLabel(first_loss, last_loss.item<float>(), kernels()));
  return t;
}

}  // namespace

void RunCnnTrain(benchmark::State& state, const std::string& device, int warmup) {
  CnnTrainer trainer(device);
  Timed t = TimeJittedStep(state, device, warmup, [&] { return trainer.Step(); },
                           [&] { return trainer.captured_kernels(); });
  Publish(state, "W9_cnn_train", device, t, 1.0 / t.median_s, "steps/s");
}

void RunGptTrain(benchmark::State& state, const std::string& device, int warmup) {
  apps::GptConfig config;  // the README's: context 64, dim 64, 2 layers, 4 heads, bytes
  Tensor::manual_seed(kSeed);
  std::mt19937_64 rng(kSeed);
  apps::CharGpt model(config);
  auto [x, y] = apps::SampleBatch(apps::LoadCorpus(), kGptBatch, config.context, rng);
  x.realize(), y.realize();
  nn::AdamW opt(nn::parameters(model), kGptLr, 0.9, 0.99, 1e-8, 0.01);
  Jit step([&](const std::vector<Tensor>& in) {  // apps/gpt.cc's step
    Training on;
    opt.zero_grad();
    Tensor logits = model(in[0]);
    Tensor loss = logits.reshape({-1, config.vocab}).sparse_categorical_crossentropy(in[1].reshape({-1}));
    loss.backward();
    std::vector<Tensor> out = {loss};
    for (const Tensor& t : opt.schedule_step()) out.push_back(t);
    return out;
  });
  Timed t = TimeJittedStep(state, device, warmup, [&] { return step({x, y})[0]; },
                           [&] { return step.captured_kernels(); });
  double tokens = static_cast<double>(kGptBatch * config.context);
  Publish(state, "W10_gpt_train", device, t, tokens / t.median_s, "tokens/s");
}

}  // namespace tg::bench
