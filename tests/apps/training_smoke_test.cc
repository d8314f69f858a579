// Smoke tests of the training apps' models: a few JIT'd optimizer steps on one fixed batch lower the loss
// (the Fashion-MNIST CNN with Adam, the byte-level GPT with AdamW).
#include <random>

#include "apps/char_gpt.h"
#include "apps/mnist_cnn.h"
#include "gtest/gtest.h"

namespace tg::apps {
namespace {

// Runs |steps| JIT'd steps of |loss_fn| with |opt| on fixed inputs; returns the first and last loss.
template <class LossFn>
std::pair<float, float> Train(nn::Optimizer& opt, LossFn loss_fn, const std::vector<Tensor>& inputs, int steps) {
  Jit step([&](const std::vector<Tensor>& in) {
    Training on;
    opt.zero_grad();
    Tensor loss = loss_fn(in);
    loss.backward();
    std::vector<Tensor> out = {loss};
    for (const Tensor& t : opt.schedule_step()) out.push_back(t);
    return out;
  });
  float first = 0, last = 0;
  for (int s = 0; s < steps; ++s) {
    last = step(inputs)[0].item<float>();
    if (s == 0) first = last;
  }
  return {first, last};
}

TEST(TrainingSmoke, MnistCnnLossFalls) {
  Tensor::manual_seed(0);
  MnistCnn model;
  nn::Adam opt(nn::get_parameters(model), 3e-3);
  Tensor x = Tensor::rand({32, 1, 28, 28}), y = Tensor::randint({32}, 0, 10);
  auto [first, last] = Train(opt, [&](const std::vector<Tensor>& in) {
    return model(in[0]).sparse_categorical_crossentropy(in[1]);
  }, {x, y}, 6);
  EXPECT_LT(last, first * 0.9f) << first << " -> " << last;
}

TEST(TrainingSmoke, CharGptLossFalls) {
  Tensor::manual_seed(0);
  CharGpt model(GptConfig{256, 16, 32, 1, 2});
  nn::AdamW opt(nn::parameters(model), 1e-2);
  std::mt19937_64 rng(0);
  std::string text = "the quick brown fox jumps over the lazy dog. " + std::string(64, 'a');
  auto [x, y] = SampleBatch(text, 4, 16, rng);
  auto [first, last] = Train(opt, [&](const std::vector<Tensor>& in) {
    return model(in[0]).reshape({-1, 256}).sparse_categorical_crossentropy(in[1].reshape({-1}));
  }, {x, y}, 6);
  EXPECT_LT(last, first * 0.9f) << first << " -> " << last;
  EXPECT_EQ(Sample(model, "the", 5, 0.0, 0, rng).size(), 8u);
}

}  // namespace
}  // namespace tg::apps
