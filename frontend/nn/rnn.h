// tg::nn::RNN: PyTorch's nn.RNN, an Elman network, h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh) with act tanh or
// relu; multi-layer and bidirectional through the shared driver (recurrent.h). A layer of tg::nn.
#ifndef TG_FRONTEND_NN_RNN_H_
#define TG_FRONTEND_NN_RNN_H_

#include <optional>
#include <string>

#include "frontend/nn/recurrent.h"

namespace tg::nn {

struct RNN {
  // |nonlinearity| is "tanh" or "relu".
  RNN(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options = {},
      const std::string& nonlinearity = "tanh");
  // |x| (seq, batch, input_size), (batch, seq, input_size) with batch_first, or unbatched (seq, input_size);
  // |h_0| (num_layers * directions, batch, hidden_size), zeros when absent.
  RecurrentOutput operator()(const Tensor& x, const std::optional<Tensor>& h_0 = std::nullopt) const;
  void visit(StateVisitor& v) { stack.visit(v); }

  internal::RecurrentStack stack;
  bool relu;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_RNN_H_
