// models.h: the W5 MLP and the W6 transformer block, built from tg::Tensor ops to match the PyTorch
// peer's MLP and Block classes (../shared/peers/bench_torch.py) layer for layer and init for init.
// Stand-ins until tg::nn exists; a later issue swaps them for the library's layers.
#ifndef TG_TOOLS_BENCH_MODELS_H_
#define TG_TOOLS_BENCH_MODELS_H_

#include <string>
#include <vector>

#include "frontend/tg.h"

namespace tg::bench {

// y = x @ w + b with w stored (in, out). Init as torch.nn.Linear and tinygrad's: U(-1/sqrt(in), 1/sqrt(in))
// for both weight and bias.
struct Linear {
  Tensor w, b;
  static Linear Init(int64_t in, int64_t out, const std::string& device);
  Tensor operator()(const Tensor& x) const { return x.matmul(w) + b; }
};

// dims[0] -> dims[1] ReLU -> ... -> dims.back(), no activation after the last layer.
struct Mlp {
  std::vector<Linear> layers;
  static Mlp Init(const std::vector<int64_t>& dims, const std::string& device);
  Tensor Forward(const Tensor& x) const;
  std::vector<Tensor> Params() const;  // w0, b0, w1, b1, ...
  void SetParams(const std::vector<Tensor>& params);  // same order as Params()
};

// Pre-LayerNorm transformer block: x + attn(ln1(x)); h + mlp(ln2(h)); causal attention, GELU(tanh).
struct Block {
  int64_t heads = 0;
  Tensor ln1_w, ln1_b, ln2_w, ln2_b;
  Linear qkv, proj, fc1, fc2;
  static Block Init(int64_t d, int64_t heads, int64_t ff, const std::string& device);
  Tensor Forward(const Tensor& x) const;  // x: (B, T, d)
  std::vector<Tensor> Params() const;
 private:
  Tensor Attention(const Tensor& x) const;
};

// conv2d, NCHW, stride 1, dilation 1, one group, zero padding |pad| on every side, from movement ops
// (tinygrad's _pool windows). Tensor::conv2d is declared in the front end but not implemented yet; W4
// switches to it when it links.
Tensor Conv2dStride1(const Tensor& x, const Tensor& weight, int64_t pad);

// Realizes every tensor in one schedule (shared intermediates computed once) and returns handles
// to the realized buffers, in order. The front end realizes one tensor at a time, so this goes
// through compiler::Realize, which takes many roots.
std::vector<Tensor> RealizeTogether(const std::vector<Tensor>& tensors);

// Waits until everything enqueued on |device| has finished (runtime Device::Synchronize): the end of
// every timed region.
void SyncDevice(const std::string& device);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_MODELS_H_
