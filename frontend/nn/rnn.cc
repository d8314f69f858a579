// tg::nn::RNN: the Elman step.
#include "frontend/nn/rnn.h"

namespace tg::nn {
namespace {

Tensor Preactivation(const Tensor& x_proj, const Tensor& h, const internal::RecurrentWeights& w) {
  return x_proj + h.linear(w.weight_hh.transpose(), w.bias_hh);
}
std::vector<Tensor> TanhStep(const Tensor& x_proj, const std::vector<Tensor>& state,
                             const internal::RecurrentWeights& w) {
  return {Preactivation(x_proj, state[0], w).tanh()};
}
std::vector<Tensor> ReluStep(const Tensor& x_proj, const std::vector<Tensor>& state,
                             const internal::RecurrentWeights& w) {
  return {Preactivation(x_proj, state[0], w).relu()};
}

bool IsRelu(const std::string& nonlinearity) {
  if (nonlinearity != "tanh" && nonlinearity != "relu")
    throw Error("RNN: nonlinearity must be \"tanh\" or \"relu\"; got \"" + nonlinearity + "\"");
  return nonlinearity == "relu";
}

}  // namespace

RNN::RNN(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options, const std::string& nonlinearity)
    : stack("RNN", input_size, hidden_size, 1, options), relu(IsRelu(nonlinearity)) {}

RecurrentOutput RNN::operator()(const Tensor& x, const std::optional<Tensor>& h_0) const {
  internal::RecurrentStack::Result r = stack.run(x, {h_0}, {"h_0"}, relu ? ReluStep : TanhStep);
  return {r.output, r.final[0]};
}

}  // namespace tg::nn
