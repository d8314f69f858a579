#include "tools/bench/models.h"

#include <optional>

namespace tg::bench {

Mlp::Mlp(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i + 1 < dims.size(); ++i) layers.emplace_back(dims[i], dims[i + 1]);
}

Tensor Mlp::operator()(const Tensor& x) const {
  Tensor h = x;
  for (size_t i = 0; i < layers.size(); ++i) {
    h = layers[i](h);
    if (i + 1 < layers.size()) h = h.relu();
  }
  return h;
}

// Members initialise in declaration order, so the random draws go qkv, proj, fc1, fc2 as the peer's.
Block::Block(int64_t d, int64_t heads, int64_t ff)
    : heads(heads), ln1(d), ln2(d), qkv(d, 3 * d), proj(d, d), fc1(d, ff), fc2(ff, d) {}

Tensor Block::Attention(const Tensor& x) const {
  int64_t bs = x.shape()[0], t = x.shape()[1], d = x.shape()[2], dh = d / heads;
  Tensor qkv_out = qkv(x);
  auto head = [&](int64_t part) {
    return qkv_out.shrink({{0, bs}, {0, t}, {part * d, (part + 1) * d}}).reshape({bs, t, heads, dh}).permute({0, 2, 1, 3});
  };
  // The peer writes softmax(q k^T / sqrt(dh), causal) v out; it says it is tinygrad's
  // scaled_dot_product_attention(is_causal=True), which the front end has.
  Tensor o = head(0).scaled_dot_product_attention(head(1), head(2), std::nullopt, 0.0, true);  // (B, H, T, dh)
  return proj(o.permute({0, 2, 1, 3}).reshape({bs, t, d}));
}

Tensor Block::operator()(const Tensor& x) const {
  Tensor h = x + Attention(ln1(x));
  return h + fc2(fc1(ln2(h)).gelu("tanh"));
}

}  // namespace tg::bench
