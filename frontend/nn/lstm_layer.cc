// tg::nn::LSTM: the long short-term memory step.
#include "frontend/nn/lstm_layer.h"

namespace tg::nn {
namespace {

std::vector<Tensor> LstmStep(const Tensor& x_proj, const std::vector<Tensor>& state,
                             const internal::RecurrentWeights& w) {
  std::vector<Tensor> ifgo = (x_proj + state[0].linear(w.weight_hh.transpose(), w.bias_hh)).chunk(4, 1);
  Tensor i = ifgo[0].sigmoid(), f = ifgo[1].sigmoid(), g = ifgo[2].tanh(), o = ifgo[3].sigmoid();
  Tensor c = f * state[1] + i * g;
  return {o * c.tanh(), c};
}

}  // namespace

LSTM::LSTM(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options)
    : stack("LSTM", input_size, hidden_size, 4, options) {}

LSTMOutput LSTM::operator()(const Tensor& x, const std::optional<std::pair<Tensor, Tensor>>& h_0_c_0) const {
  std::vector<std::optional<Tensor>> initial{std::nullopt, std::nullopt};
  if (h_0_c_0) initial = {h_0_c_0->first, h_0_c_0->second};
  internal::RecurrentStack::Result r = stack.run(x, initial, {"h_0", "c_0"}, LstmStep);
  return {r.output, r.final[0], r.final[1]};
}

}  // namespace tg::nn
