// The multi-layer, bidirectional driver shared by tg::nn::RNN, GRU and LSTM: PyTorch's parameter names and
// layout (weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}), its input layouts
// ((seq, batch, feature), batch_first, unbatched (seq, feature)) and its state layout
// (num_layers * directions, batch, hidden). Each layer says only what one time step computes.
#ifndef TG_FRONTEND_NN_RECURRENT_H_
#define TG_FRONTEND_NN_RECURRENT_H_

#include <optional>
#include <string>
#include <vector>

#include "frontend/nn/module.h"

namespace tg::nn {

// PyTorch's constructor arguments after (input_size, hidden_size), by name:
//   tg::nn::LSTM lstm(8, 16, {.num_layers = 2, .batch_first = true, .bidirectional = true});
struct RecurrentOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  double dropout = 0;  // on every layer's output but the last, while training (tg::Training)
  bool bidirectional = false;
};

// What RNN and GRU return: every step's top-layer h, and every layer's last h.
struct RecurrentOutput {
  Tensor output;  // (seq, batch, directions * hidden_size); (batch, seq, ...) with batch_first
  Tensor h_n;     // (num_layers * directions, batch, hidden_size)
};

namespace internal {

// One layer and direction's parameters; gates are stacked along the first axis in PyTorch's order.
struct RecurrentWeights {
  Tensor weight_ih, weight_hh;  // (gates * hidden, input of the layer), (gates * hidden, hidden)
  std::optional<Tensor> bias_ih, bias_hh;
};

// One time step: |x_proj| is the input's projection x W_ih^T + b_ih, (batch, gates * hidden), and |state| the
// state before the step (h, or h and c, each (batch, hidden)); returns the state after it, h first.
using RecurrentStep = std::vector<Tensor> (*)(const Tensor& x_proj, const std::vector<Tensor>& state,
                                              const RecurrentWeights& w);

class RecurrentStack {
 public:
  // |layer| names the layer in errors; |gates| is how many gate blocks the weights stack (RNN 1, GRU 3, LSTM 4).
  RecurrentStack(std::string layer, int64_t input_size, int64_t hidden_size, int64_t gates,
                 const RecurrentOptions& options);

  struct Result {
    Tensor output;              // (seq, batch, directions * hidden), in the input's layout
    std::vector<Tensor> final;  // each (num_layers * directions, batch, hidden); unbatched: no batch axis
  };
  // Runs every layer over |x|. |initial| holds one entry per state tensor (h, or h and c); absent ones are zeros.
  // |state_names| name them in errors ("h_0", "c_0").
  Result run(const Tensor& x, const std::vector<std::optional<Tensor>>& initial,
             const std::vector<std::string>& state_names, RecurrentStep step) const;

  void visit(StateVisitor& v);

  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  const RecurrentOptions& options() const { return options_; }
  int64_t directions() const { return options_.bidirectional ? 2 : 1; }
  // Layer-major, forward direction before reverse: cells[layer * directions() + direction].
  std::vector<RecurrentWeights> cells;

 private:
  Tensor run_direction(const Tensor& seq, const RecurrentWeights& w, bool reverse, std::vector<Tensor>& state,
                       RecurrentStep step) const;

  std::string layer_;
  int64_t input_size_, hidden_size_;
  RecurrentOptions options_;
};

}  // namespace internal
}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_RECURRENT_H_
