#include "tools/bench/cnn_trainer.h"

#include <cstdint>
#include <random>

#include "frontend/nn/nn.h"
#include "frontend/nn/training.h"

namespace tg::bench {
namespace {

constexpr int64_t kBatch = 128;  // apps/fashion_mnist.cc --batch
constexpr double kLr = 3e-3;     // --lr (the schedule's decay is left out: a buffer write per step)
constexpr unsigned kSeed = 1337;  // --seed

apps::MnistCnn SeededCnn() {
  Tensor::manual_seed(kSeed);
  return apps::MnistCnn();
}

Tensor RandomLabels(const std::string& device) {
  std::mt19937 gen(kSeed);
  std::uniform_int_distribution<int32_t> cls(0, 9);
  std::vector<int32_t> y(kBatch);
  for (int32_t& v : y) v = cls(gen);
  return Tensor::from_vector(y, Shape{kBatch}, device).realize();
}

}  // namespace

CnnTrainer::CnnTrainer(const std::string& device)
    : model_(SeededCnn()),
      adam_(nn::get_parameters(model_), kLr),
      // Random images in [0, 1), as the loader's pixels / 255: the step's time does not depend on the data.
      images_(Tensor::rand({kBatch, 1, 28, 28}, dtypes::float32, device).realize()),
      labels_(RandomLabels(device)),
      step_([this](const std::vector<Tensor>& in) {  // apps/fashion_mnist.cc's step: loss, accuracy, update
        Training on;
        adam_.zero_grad();
        Tensor logits = model_(in[0]);
        Tensor loss = logits.sparse_categorical_crossentropy(in[1]);
        loss.backward();
        Tensor acc = (logits.argmax(-1).cast(dtypes::int32) == in[1]).cast(dtypes::float32).mean();
        std::vector<Tensor> out = {loss, acc};
        for (const Tensor& t : adam_.schedule_step()) out.push_back(t);
        return out;
      }) {}

Tensor CnnTrainer::Step() { return step_({images_, labels_})[0]; }

}  // namespace tg::bench
