// models.h: the W5 MLP and the W6 transformer block from tg::nn layers, matching the PyTorch peer's MLP and
// Block classes (../shared/peers/bench_torch.py) layer for layer: same shapes, same init distributions.
#ifndef TG_TOOLS_BENCH_MODELS_H_
#define TG_TOOLS_BENCH_MODELS_H_

#include <cstdint>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"

namespace tg::bench {

// dims[0] -> dims[1] ReLU -> ... -> dims.back(), no activation after the last layer.
struct Mlp {
  explicit Mlp(const std::vector<int64_t>& dims);
  Tensor operator()(const Tensor& x) const;
  void visit(nn::StateVisitor& v) { v("layers", layers); }

  std::vector<nn::Linear> layers;
};

// Pre-LayerNorm transformer block: x + attn(ln1(x)); h + mlp(ln2(h)); causal attention, GELU(tanh).
// qkv's output is q | k | v along the last axis, as the peer's split.
struct Block {
  Block(int64_t d, int64_t heads, int64_t ff);
  Tensor operator()(const Tensor& x) const;  // x: (B, T, d)
  void visit(nn::StateVisitor& v) {
    v("ln1", ln1), v("ln2", ln2), v("qkv", qkv), v("proj", proj), v("fc1", fc1), v("fc2", fc2);
  }

  int64_t heads;
  nn::LayerNorm ln1, ln2;
  nn::Linear qkv, proj, fc1, fc2;

 private:
  Tensor Attention(const Tensor& x) const;
};

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_MODELS_H_
