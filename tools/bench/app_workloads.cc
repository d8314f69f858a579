// W9 (the Fashion-MNIST CNN's training step) and W10 (the byte GPT's training step): the apps' own models,
// optimizers and jitted steps (apps/fashion_mnist.cc, apps/gpt.cc) at their default flags, on one fixed batch.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "apps/char_gpt.h"
#include "apps/mnist_cnn.h"
#include "frontend/jit.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

constexpr int64_t kCnnBatch = 128;     // apps/fashion_mnist.cc --batch
constexpr double kCnnLr = 3e-3;        // --lr (the schedule's decay is left out: a buffer write per step)
constexpr int64_t kGptBatch = 16;      // apps/gpt.cc --batch
constexpr double kGptLr = 3e-3;        // --lr
constexpr unsigned kSeed = 1337;       // both apps' --seed

std::string LossLabel(float before, float after, size_t kernels) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "loss %.4f -> %.4f, %zu kernels replayed", before, after, kernels);
  return buf;
}

// Times |step| (a jitted training step whose first output is the loss): call 1 runs, call 2 captures,
// so at least three untimed calls make every timed call a replay. Returns the timing; |label| gets the
// loss before and after, the cheap evidence that the step trains.
Timed TimeJittedStep(benchmark::State& state, const std::string& device, int warmup, Jit& step,
                     const std::vector<Tensor>& inputs) {
  float first_loss = 0;
  bool first = true;
  auto run = [&] {
    Tensor loss = step(inputs)[0];
    SyncDevice(device);
    if (first) first_loss = loss.item<float>(), first = false;
  };
  Timed t = TimeRuns(state, run, std::max(warmup, 3));
  state.SetLabel(LossLabel(first_loss, step(inputs)[0].item<float>(), step.captured_kernels()));
  return t;
}

Tensor RandomLabels(int64_t n, int32_t classes, const std::string& device) {
  std::mt19937 gen(kSeed);
  std::uniform_int_distribution<int32_t> cls(0, classes - 1);
  std::vector<int32_t> y(n);
  for (int32_t& v : y) v = cls(gen);
  return Tensor::from_vector(y, Shape{n}, device).realize();
}

}  // namespace

void RunCnnTrain(benchmark::State& state, const std::string& device, int warmup) {
  Tensor::manual_seed(kSeed);
  apps::MnistCnn model;
  nn::Adam opt(nn::get_parameters(model), kCnnLr);
  // Random images in [0, 1), as the loader's pixels / 255: the step's time does not depend on the data.
  Tensor x = Tensor::rand({kCnnBatch, 1, 28, 28}, dtypes::float32, device).realize();
  Tensor y = RandomLabels(kCnnBatch, 10, device);
  Jit step([&](const std::vector<Tensor>& in) {  // apps/fashion_mnist.cc's step: loss, accuracy, update
    Training on;
    opt.zero_grad();
    Tensor logits = model(in[0]);
    Tensor loss = logits.sparse_categorical_crossentropy(in[1]);
    loss.backward();
    Tensor acc = (logits.argmax(-1).cast(dtypes::int32) == in[1]).cast(dtypes::float32).mean();
    std::vector<Tensor> out = {loss, acc};
    for (const Tensor& t : opt.schedule_step()) out.push_back(t);
    return out;
  });
  Timed t = TimeJittedStep(state, device, warmup, step, {x, y});
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
  Timed t = TimeJittedStep(state, device, warmup, step, {x, y});
  double tokens = static_cast<double>(kGptBatch * config.context);
  Publish(state, "W10_gpt_train", device, t, tokens / t.median_s, "tokens/s");
}

}  // namespace tg::bench
