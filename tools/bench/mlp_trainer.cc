#include "tools/bench/mlp_trainer.h"

#include <cstdint>
#include <random>
#include <vector>

#include "frontend/nn/training.h"

namespace tg::bench {
namespace {

constexpr int64_t kBatch = 128;
const std::vector<int64_t> kDims = {784, 512, 512, 10};

Mlp SeededMlp(const std::string& device) {
  Tensor::manual_seed(0);
  return Mlp::Init(kDims, device);
}

// The parameters as leaves that take gradients (tg::nn::Adam updates only those).
Mlp TrainableMlp(const std::string& device) {
  Mlp mlp = SeededMlp(device);
  for (Tensor p : mlp.Params()) p.requires_grad(true);  // a handle: marks the model's own tensor
  return mlp;
}

Tensor RandomLabels(const std::string& device) {
  std::mt19937 gen(0);
  std::uniform_int_distribution<int32_t> cls(0, static_cast<int32_t>(kDims.back()) - 1);
  std::vector<int32_t> y(kBatch);
  for (int32_t& v : y) v = cls(gen);
  return Tensor::from_vector(y, Shape{kBatch}, device).realize();
}

}  // namespace

MlpTrainer::MlpTrainer(const std::string& device)
    : mlp_(SeededMlp(device)),
      adam_(mlp_.Params(), 1e-3),
      x_(Tensor::randn({kBatch, kDims.front()}, dtypes::float32, device).realize()),
      labels_(RandomLabels(device)) {}

Tensor MlpTrainer::Forward() const { return mlp_.Forward(x_); }

Tensor MlpTrainer::Step() {
  std::vector<Tensor> params = mlp_.Params();
  Tensor loss = Forward().sparse_categorical_crossentropy(labels_);
  std::vector<Tensor> grads = loss.gradient(params);
  mlp_.SetParams(adam_.Step(params, grads, loss));
  return loss;
}

JitMlpTrainer::JitMlpTrainer(const std::string& device)
    : mlp_(TrainableMlp(device)),
      adam_(mlp_.Params(), 1e-3),
      // Same RNG order as MlpTrainer (params, then x): the same first loss.
      x_(Tensor::randn({kBatch, kDims.front()}, dtypes::float32, device).realize()),
      labels_(RandomLabels(device)),
      step_([this](const std::vector<Tensor>& in) {
        Training on;
        adam_.zero_grad();
        Tensor loss = mlp_.Forward(in[0]).sparse_categorical_crossentropy(in[1]);
        loss.backward();
        std::vector<Tensor> out = {loss};
        for (const Tensor& t : adam_.schedule_step()) out.push_back(t);
        return out;
      }) {}

Tensor JitMlpTrainer::Step() { return step_({x_, labels_})[0]; }

}  // namespace tg::bench
