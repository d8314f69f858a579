// tg::nn::GRU: the gated recurrent step.
#include "frontend/nn/gru.h"

namespace tg::nn {
namespace {

std::vector<Tensor> GruStep(const Tensor& x_proj, const std::vector<Tensor>& state,
                            const internal::RecurrentWeights& w) {
  const Tensor& h = state[0];
  std::vector<Tensor> x_rzn = x_proj.chunk(3, 1);
  std::vector<Tensor> h_rzn = h.linear(w.weight_hh.transpose(), w.bias_hh).chunk(3, 1);
  Tensor r = (x_rzn[0] + h_rzn[0]).sigmoid(), z = (x_rzn[1] + h_rzn[1]).sigmoid();
  Tensor n = (x_rzn[2] + r * h_rzn[2]).tanh();
  return {n + z * (h - n)};
}

}  // namespace

GRU::GRU(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options)
    : stack("GRU", input_size, hidden_size, 3, options) {}

RecurrentOutput GRU::operator()(const Tensor& x, const std::optional<Tensor>& h_0) const {
  internal::RecurrentStack::Result r = stack.run(x, {h_0}, {"h_0"}, GruStep);
  return {r.output, r.final[0]};
}

}  // namespace tg::nn
