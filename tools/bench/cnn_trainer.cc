#include "tools/bench/cnn_trainer.h"

#include <cstdint>

#include "frontend/nn/nn.h"
#include "frontend/nn/training.h"
#include "tools/bench/random_labels.h"

namespace tg::bench {
namespace {

constexpr int64_t kBatch = 128;  // apps/fashion_mnist.cc --batch
constexpr double kLr = 3e-3;     // --lr (the schedule's decay is left out: a buffer write per step)
constexpr unsigned kSeed = 1337;  // --seed

apps::MnistCnn SeededCnn() {
  Tensor::manual_seed(kSeed);
  return apps::MnistCnn();
}

}  // namespace

CnnTrainer::CnnTrainer(const std::string& device)
    : model_(SeededCnn()),
      adam_(nn::get_parameters(model_), kLr),
      // Random images in [0, 1), as the loader's pixels / 255: the step's time does not depend on the data.
      images_(Tensor::rand({kBatch, 1, 28, 28}, dtypes::float32, device).realize()),
      labels_(RandomLabels(kBatch, 10, kSeed, device)),
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
