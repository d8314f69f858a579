// tg::nn::LSTM: PyTorch's nn.LSTM, gates i, f, g, o stacked in that order (the step of LSTMCell, lstm.h);
// multi-layer and bidirectional through the shared driver (recurrent.h). A layer of tg::nn.
#ifndef TG_FRONTEND_NN_LSTM_LAYER_H_
#define TG_FRONTEND_NN_LSTM_LAYER_H_

#include <optional>
#include <utility>

#include "frontend/nn/recurrent.h"

namespace tg::nn {

struct LSTMOutput {
  Tensor output;  // (seq, batch, directions * hidden_size); (batch, seq, ...) with batch_first
  Tensor h_n;     // (num_layers * directions, batch, hidden_size)
  Tensor c_n;     // same shape as h_n
};

struct LSTM {
  LSTM(int64_t input_size, int64_t hidden_size, const RecurrentOptions& options = {});
  // |x| (seq, batch, input_size), (batch, seq, input_size) with batch_first, or unbatched (seq, input_size);
  // |h_0_c_0| each (num_layers * directions, batch, hidden_size), zeros when absent.
  LSTMOutput operator()(const Tensor& x,
                        const std::optional<std::pair<Tensor, Tensor>>& h_0_c_0 = std::nullopt) const;
  void visit(StateVisitor& v) { stack.visit(v); }

  internal::RecurrentStack stack;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_LSTM_LAYER_H_
