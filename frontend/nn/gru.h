// tg::nn::GRU: PyTorch's nn.GRU, gates r, z, n stacked in that order, with the reset gate applied after the
// recurrent projection: n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)), h' = (1 - z) n + z h.
// Multi-layer and bidirectional through the shared driver (recurrent.h). A layer of tg::nn.
#ifndef TG_FRONTEND_NN_GRU_H_
#define TG_FRONTEND_NN_GRU_H_

#include <optional>

#include "frontend/nn/recurrent.h"

namespace tg::nn {

struct GRU {
  GRU(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options = {});
  // |x| (seq, batch, input_size), (batch, seq, input_size) with batch_first, or unbatched (seq, input_size);
  // |h_0| (num_layers * directions, batch, hidden_size), zeros when absent.
  RecurrentOutput operator()(const Tensor& x, const std::optional<Tensor>& h_0 = std::nullopt) const;
  void visit(StateVisitor& v) { stack.visit(v); }

  internal::RecurrentStack stack;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_GRU_H_
