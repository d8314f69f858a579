// A small training step run under PROFILE for the trace tests: three calls of a jitted SGD step on a
// two-layer MLP (the first call, the capture, a replay), so every kind of event occurs.
#pragma once

#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"

namespace tg::testing_profile {

// Returns the losses; the events stay in runtime::TraceRecorder::Global().
inline std::vector<float> RunProfiledTrainingSteps(int steps = 3) {
  Tensor::manual_seed(3);
  nn::Linear hidden(8, 16), out(16, 4);
  std::vector<Tensor> params = nn::parameters(hidden);
  for (const Tensor& p : nn::parameters(out)) params.push_back(p);
  nn::SGD opt(params, 0.1f);
  Tensor x = Tensor::randn({32, 8});
  Tensor y = Tensor::randint({32}, 0, 4);
  Jit step([&](const std::vector<Tensor>& in) {
    Training on;
    opt.zero_grad();
    Tensor loss = out(hidden(in[0]).relu()).sparse_categorical_crossentropy(in[1]);
    loss.backward();
    opt.step();
    return std::vector<Tensor>{loss};
  });
  std::vector<float> losses;
  for (int s = 0; s < steps; ++s) losses.push_back(step({x, y})[0].item<float>());
  return losses;
}

}  // namespace tg::testing_profile
