// tg::nn::LSTMCell: the gate arithmetic of one step.
#include "frontend/nn/lstm.h"

#include <cmath>

namespace tg::nn {

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, bool bias)
    : weight_ih(internal::Param(internal::Uniform({hidden_size * 4, input_size}, 1.0 / std::sqrt(hidden_size)))),
      weight_hh(internal::Param(internal::Uniform({hidden_size * 4, hidden_size}, 1.0 / std::sqrt(hidden_size)))) {
  if (bias) {
    bias_ih = internal::Filled({hidden_size * 4}, 0).requires_grad(true);
    bias_hh = internal::Filled({hidden_size * 4}, 0).requires_grad(true);
  }
}

std::pair<Tensor, Tensor> LSTMCell::operator()(const Tensor& x, const std::optional<std::pair<Tensor, Tensor>>& hc) const {
  if (x.ndim() != 2 || x.shape()[1] != weight_ih.shape()[1])
    throw Error("LSTMCell: input must be (batch, " + std::to_string(weight_ih.shape()[1]) + "); got " +
                ShapeString(x.shape()));
  Tensor zeros = Tensor::zeros({x.shape()[0], weight_hh.shape()[1]}, x.dtype(), x.device());
  const Tensor& h = hc ? hc->first : zeros;
  const Tensor& c = hc ? hc->second : zeros;
  Tensor gates = x.linear(weight_ih.transpose(), bias_ih) + h.linear(weight_hh.transpose(), bias_hh);
  std::vector<Tensor> ifgo = gates.chunk(4, 1);
  Tensor i = ifgo[0].sigmoid(), f = ifgo[1].sigmoid(), g = ifgo[2].tanh(), o = ifgo[3].sigmoid();
  Tensor new_c = f * c + i * g;
  return {o * new_c.tanh(), new_c};
}

}  // namespace tg::nn
