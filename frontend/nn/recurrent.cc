// tg::nn's recurrent driver: the layer and direction loops, the unrolled time loop, the layouts and their checks.
#include "frontend/nn/recurrent.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "frontend/nn/init.h"

namespace tg::nn::internal {

RecurrentStack::RecurrentStack(std::string layer, int64_t input_size, int64_t hidden_size, int64_t gates,
                               const RecurrentOptions& options)
    : layer_(std::move(layer)), input_size_(input_size), hidden_size_(hidden_size), options_(options) {
  if (input_size < 1 || hidden_size < 1)
    throw Error(layer_ + ": input_size and hidden_size must be at least 1; got " + std::to_string(input_size) +
                " and " + std::to_string(hidden_size));
  if (options.num_layers < 1)
    throw Error(layer_ + ": num_layers must be at least 1; got " + std::to_string(options.num_layers));
  if (!(options.dropout >= 0 && options.dropout <= 1))
    throw Error(layer_ + ": dropout must be in [0, 1]; got " + std::to_string(options.dropout));
  // PyTorch draws every parameter, biases too, uniform in +-1/sqrt(hidden_size).
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (int64_t l = 0; l < options.num_layers; ++l) {
    int64_t in = l == 0 ? input_size : hidden_size * directions();
    for (int64_t d = 0; d < directions(); ++d) {
      RecurrentWeights w{Param(Uniform({gates * hidden_size, in}, bound)),
                         Param(Uniform({gates * hidden_size, hidden_size}, bound)), std::nullopt, std::nullopt};
      if (options.bias) {
        w.bias_ih = Param(Uniform({gates * hidden_size}, bound));
        w.bias_hh = Param(Uniform({gates * hidden_size}, bound));
      }
      cells.push_back(std::move(w));
    }
  }
}

void RecurrentStack::visit(StateVisitor& v) {
  for (size_t i = 0; i < cells.size(); ++i) {
    std::string suffix = "_l" + std::to_string(i / directions()) + (i % directions() == 1 ? "_reverse" : "");
    v("weight_ih" + suffix, cells[i].weight_ih), v("weight_hh" + suffix, cells[i].weight_hh);
    v("bias_ih" + suffix, cells[i].bias_ih), v("bias_hh" + suffix, cells[i].bias_hh);
  }
}

Tensor RecurrentStack::run_direction(const Tensor& seq, const RecurrentWeights& w, bool reverse,
                                     std::vector<Tensor>& state, RecurrentStep step) const {
  const int64_t steps = seq.shape()[0], batch = seq.shape()[1];
  // One matmul projects the input of every step; only the recurrent half stays inside the loop.
  Tensor proj = seq.linear(w.weight_ih.transpose(), w.bias_ih);
  const int64_t width = proj.shape()[2];
  std::vector<Tensor> hs;  // in the order computed
  for (int64_t s = 0; s < steps; ++s) {
    int64_t t = reverse ? steps - 1 - s : s;
    state = step(proj.shrink({{t, t + 1}, {0, batch}, {0, width}}).reshape({batch, width}), state, w);
    hs.push_back(state[0]);
  }
  if (reverse) std::reverse(hs.begin(), hs.end());
  return hs[0].stack(std::vector<Tensor>(hs.begin() + 1, hs.end()), 0);
}

RecurrentStack::Result RecurrentStack::run(const Tensor& x, const std::vector<std::optional<Tensor>>& initial,
                                           const std::vector<std::string>& state_names, RecurrentStep step) const {
  const std::string layout = x.ndim() == 2 ? "(seq, input_size)"
                             : options_.batch_first ? "(batch, seq, input_size)"
                                                    : "(seq, batch, input_size)";
  if (x.ndim() != 2 && x.ndim() != 3)
    throw Error(layer_ + ": input must be (seq, batch, input_size), (batch, seq, input_size) with batch_first, or "
                "unbatched (seq, input_size); got " + ShapeString(x.shape()));
  if (x.shape().back() != input_size_)
    throw Error(layer_ + ": input must be " + layout + " with input_size " + std::to_string(input_size_) + "; got " +
                ShapeString(x.shape()));
  const bool unbatched = x.ndim() == 2;
  Tensor seq = unbatched ? x.unsqueeze(1) : options_.batch_first ? x.transpose(0, 1) : x;
  const int64_t steps = seq.shape()[0], batch = seq.shape()[1];
  if (steps < 1) throw Error(layer_ + ": the sequence must have at least one step; got " + ShapeString(x.shape()));

  const int64_t stacked = options_.num_layers * directions();
  Shape want = unbatched ? Shape{stacked, hidden_size_} : Shape{stacked, batch, hidden_size_};
  std::vector<Tensor> start;
  for (size_t k = 0; k < state_names.size(); ++k) {
    const std::optional<Tensor>& given = k < initial.size() ? initial[k] : std::nullopt;
    if (!given) {
      start.push_back(Tensor::zeros({stacked, batch, hidden_size_}, x.dtype(), x.device()));
      continue;
    }
    if (given->shape() != want)
      throw Error(layer_ + ": " + state_names[k] + " must be " + ShapeString(want) +
                  " (num_layers * directions, " + (unbatched ? "" : "batch, ") + "hidden_size); got " +
                  ShapeString(given->shape()));
    start.push_back(unbatched ? given->unsqueeze(1) : *given);
  }

  std::vector<std::vector<Tensor>> finals(state_names.size());
  for (int64_t l = 0; l < options_.num_layers; ++l) {
    std::vector<Tensor> outs;
    for (int64_t d = 0; d < directions(); ++d) {
      const int64_t i = l * directions() + d;
      std::vector<Tensor> state;
      for (const Tensor& s : start) state.push_back(s.shrink({{i, i + 1}, {0, batch}, {0, hidden_size_}}).reshape({batch, hidden_size_}));
      outs.push_back(run_direction(seq, cells[static_cast<size_t>(i)], d == 1, state, step));
      for (size_t k = 0; k < state.size(); ++k) finals[k].push_back(state[k]);
    }
    seq = outs.size() == 1 ? outs[0] : outs[0].cat({outs[1]}, 2);
    if (options_.dropout > 0 && l + 1 < options_.num_layers) seq = seq.dropout(options_.dropout);
  }

  Result result{unbatched ? seq.squeeze(1) : options_.batch_first ? seq.transpose(0, 1) : seq, {}};
  for (std::vector<Tensor>& f : finals) {
    Tensor stackedf = f[0].stack(std::vector<Tensor>(f.begin() + 1, f.end()), 0);
    result.final.push_back(unbatched ? stackedf.squeeze(1) : stackedf);
  }
  return result;
}

}  // namespace tg::nn::internal
