// tg::nn::LSTMCell: one step of a long short-term memory cell, initialised as tinygrad's nn.LSTMCell
// (weights uniform +-1/sqrt(hidden), biases zero). A layer of tg::nn.
#ifndef TG_FRONTEND_NN_LSTM_H_
#define TG_FRONTEND_NN_LSTM_H_

#include <optional>
#include <utility>

#include "frontend/nn/init.h"
#include "frontend/nn/module.h"

namespace tg::nn {

struct LSTMCell {
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true);
  // |x| (batch, input_size) and the previous (h, c), each (batch, hidden_size), zeros when absent.
  // Returns the new (h, c).
  std::pair<Tensor, Tensor> operator()(const Tensor& x,
                                       const std::optional<std::pair<Tensor, Tensor>>& hc = std::nullopt) const;
  void visit(StateVisitor& v) {
    v("weight_ih", weight_ih), v("weight_hh", weight_hh), v("bias_ih", bias_ih), v("bias_hh", bias_hh);
  }

  Tensor weight_ih, weight_hh;  // (4 hidden, input), (4 hidden, hidden); gates in order i, f, g, o
  std::optional<Tensor> bias_ih, bias_hh;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_LSTM_H_
