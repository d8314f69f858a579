#include "tools/bench/mlp_trainer.h"

#include <cstdint>
#include <vector>

#include "frontend/nn/training.h"
#include "tools/bench/random_labels.h"

namespace tg::bench {
namespace {

constexpr int64_t kBatch = 128;
const std::vector<int64_t> kDims = {784, 512, 512, 10};

Mlp SeededMlp() {
  Tensor::manual_seed(0);
  return Mlp(kDims);
}

Tensor Loss(const Mlp& mlp, const Tensor& x, const Tensor& labels) {
  return mlp(x).sparse_categorical_crossentropy(labels);
}

}  // namespace

MlpTrainer::MlpTrainer(const std::string& device)
    : mlp_(SeededMlp()),
      adam_(nn::parameters(mlp_), 1e-3),
      x_(Tensor::randn({kBatch, kDims.front()}, dtypes::float32, device).realize()),
      labels_(RandomLabels(kBatch, static_cast<int32_t>(kDims.back()), 0, device)) {}

Tensor MlpTrainer::Forward() const { return mlp_(x_); }

Tensor MlpTrainer::Step() {
  Training on;
  adam_.zero_grad();
  Tensor loss = Loss(mlp_, x_, labels_);
  loss.backward();
  std::vector<Tensor> out = adam_.schedule_step();
  out.push_back(loss);
  Tensor::realize_all(out);
  return loss;
}

JitMlpTrainer::JitMlpTrainer(const std::string& device)
    : mlp_(SeededMlp()),
      adam_(nn::parameters(mlp_), 1e-3),
      // Same RNG order as MlpTrainer (params, then x): the same first loss.
      x_(Tensor::randn({kBatch, kDims.front()}, dtypes::float32, device).realize()),
      labels_(RandomLabels(kBatch, static_cast<int32_t>(kDims.back()), 0, device)),
      step_([this](const std::vector<Tensor>& in) {
        Training on;
        adam_.zero_grad();
        Tensor loss = Loss(mlp_, in[0], in[1]);
        loss.backward();
        std::vector<Tensor> out = {loss};
        for (const Tensor& t : adam_.schedule_step()) out.push_back(t);
        return out;
      }) {}

Tensor JitMlpTrainer::Step() { return step_({x_, labels_})[0]; }

}  // namespace tg::bench
