// GPT-2 (apps/gpt2_model.h). Forward follows HF's GPT2Model: pre-LN blocks, tanh GELU, causal attention.
// Step() keeps the shapes fixed (the cache is full-context, the position a tg::Variable the kernels take
// as an argument), so one JIT capture serves every decoding step.
#include "apps/gpt2_model.h"

#include <cmath>
#include <memory>

namespace tg::apps {
namespace {

Tensor Take(nn::StateDict& sd, const std::string& name, const Shape& shape) {
  auto it = sd.find(name);
  if (it == sd.end()) it = sd.find("transformer." + name);
  if (it == sd.end()) throw Error("gpt2 checkpoint: missing tensor \"" + name + "\"");
  if (it->second.shape() != shape)
    throw Error("gpt2 checkpoint: \"" + name + "\" is " + ShapeString(it->second.shape()) + ", expected " +
                ShapeString(shape));
  return it->second.cast(dtypes::float32).realize();
}

Tensor LayerNorm(const Tensor& x, const Tensor& w, const Tensor& b) { return x.layernorm({-1}, 1e-5) * w + b; }

}  // namespace

Gpt2::Gpt2(const std::string& path, int64_t heads) : Gpt2(nn::safe_load(path), heads) {}
Gpt2::Gpt2(nn::StateDict sd, int64_t heads) : Gpt2(sd, Measure(sd, heads)) {}

Gpt2::Dims Gpt2::Measure(const nn::StateDict& sd, int64_t heads) {
  auto shape_of = [&](const std::string& name) {
    auto it = sd.find(name);
    if (it == sd.end()) it = sd.find("transformer." + name);
    if (it == sd.end() || it->second.ndim() != 2) throw Error("gpt2 checkpoint: missing 2-D tensor \"" + name + "\"");
    return it->second.shape();
  };
  Dims d{0, shape_of("wte.weight")[1], 0, shape_of("wte.weight")[0], shape_of("wpe.weight")[0]};
  d.heads = heads > 0 ? heads : d.dim / 64;
  if (d.heads < 1 || d.dim % d.heads != 0)
    throw Error("gpt2: width " + std::to_string(d.dim) + " is not divisible by " + std::to_string(d.heads) +
                " heads (pass --heads)");
  while (sd.count("h." + std::to_string(d.layers) + ".ln_1.weight") ||
         sd.count("transformer.h." + std::to_string(d.layers) + ".ln_1.weight"))
    ++d.layers;
  if (d.layers == 0) throw Error("gpt2 checkpoint: no blocks (h.0.ln_1.weight missing)");
  return d;
}

Gpt2::Gpt2(nn::StateDict& sd, const Dims& dims)
    : layers_(dims.layers), dim_(dims.dim), heads_(dims.heads), vocab_(dims.vocab), context_(dims.context),
      wte_(Take(sd, "wte.weight", {vocab_, dim_})), wpe_(Take(sd, "wpe.weight", {context_, dim_})),
      lnf_w_(Take(sd, "ln_f.weight", {dim_})), lnf_b_(Take(sd, "ln_f.bias", {dim_})),
      position_("pos", 0, context_ - 1) {
  const int64_t d = dim_, hd = dim_ / heads_;
  for (int64_t i = 0; i < layers_; ++i) {
    std::string p = "h." + std::to_string(i) + ".";
    h_.push_back({Take(sd, p + "ln_1.weight", {d}), Take(sd, p + "ln_1.bias", {d}),
                  Take(sd, p + "attn.c_attn.weight", {d, 3 * d}), Take(sd, p + "attn.c_attn.bias", {3 * d}),
                  Take(sd, p + "attn.c_proj.weight", {d, d}), Take(sd, p + "attn.c_proj.bias", {d}),
                  Take(sd, p + "ln_2.weight", {d}), Take(sd, p + "ln_2.bias", {d}),
                  Take(sd, p + "mlp.c_fc.weight", {d, 4 * d}), Take(sd, p + "mlp.c_fc.bias", {4 * d}),
                  Take(sd, p + "mlp.c_proj.weight", {4 * d, d}), Take(sd, p + "mlp.c_proj.bias", {d}),
                  Tensor::zeros({1, heads_, context_, hd}).contiguous().realize(),
                  Tensor::zeros({1, heads_, context_, hd}).contiguous().realize()});
  }
}

// Full sequence: causal attention. One step: this token's k and v are written into the cache at
// |step_pos| and the query attends to cache positions <= pos: the cache cut to the symbolic length
// pos + 1, so its loops run to the position and one kernel serves every position (docs/variables.md).
Tensor Gpt2::Attention(const Layer& l, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* step_pos) {
  if (step_pos == nullptr) return q.scaled_dot_product_attention(k, v, std::nullopt, 0.0, /*is_causal=*/true);
  Tensor slots = Tensor::arange(0, context_, 1, dtypes::int32).reshape({1, 1, context_, 1});
  Tensor here = slots == step_pos->reshape({1, 1, 1, 1});
  // Written in place (handles share state: the member sees the new value) and read back from the cache,
  // so the new slot is stored once and attention reads the cache itself, not a second copy of it.
  Tensor(l.cache_k).assign(here.where(k, l.cache_k));
  Tensor(l.cache_v).assign(here.where(v, l.cache_v));
  Tensor length = step_pos->reshape({}) + 1;
  return q.scaled_dot_product_attention(l.cache_k.shrink_to(2, length), l.cache_v.shrink_to(2, length));
}

Tensor Gpt2::Block(const Layer& l, const Tensor& x, const Tensor* step_pos) {
  int64_t b = x.shape()[0], t = x.shape()[1], hd = dim_ / heads_;
  Tensor qkv = LayerNorm(x, l.ln1_w, l.ln1_b).matmul(l.attn_w) + l.attn_b;
  qkv = qkv.reshape({b, t, 3, heads_, hd}).permute({2, 0, 3, 1, 4});
  Tensor y = Attention(l, qkv[{0}], qkv[{1}], qkv[{2}], step_pos);
  Tensor h = x + y.permute({0, 2, 1, 3}).reshape({b, t, dim_}).matmul(l.proj_w) + l.proj_b;
  Tensor m = (LayerNorm(h, l.ln2_w, l.ln2_b).matmul(l.fc_w) + l.fc_b).gelu("tanh");
  return h + m.matmul(l.out_w) + l.out_b;
}

Tensor Gpt2::Forward(const Tensor& tokens) const {
  int64_t t = tokens.shape()[1];
  if (t > context_) throw Error("gpt2: " + std::to_string(t) + " tokens exceed the context of " + std::to_string(context_));
  Tensor x = wte_[{tokens}] + wpe_.shrink({{0, t}, {0, dim_}});
  auto* self = const_cast<Gpt2*>(this);  // Block only writes the cache when given a step position
  for (const Layer& l : h_) x = self->Block(l, x, nullptr);
  return LayerNorm(x, lnf_w_, lnf_b_).matmul(wte_.transpose());
}

std::vector<float> Gpt2::Step(int token) {
  if (pos_ >= context_) throw Error("gpt2: the context of " + std::to_string(context_) + " tokens is full");
  if (token < 0 || token >= vocab_) throw Error("gpt2: token " + std::to_string(token) + " is outside the vocabulary");
  if (!step_) {
    step_ = std::make_unique<Jit>([this](const std::vector<Tensor>& in) {
      Tensor pos = in[1].reshape({1});
      Tensor x = wte_[{in[0]}] + wpe_[{pos}].reshape({1, 1, dim_});
      std::vector<Tensor> out;
      for (Layer& l : h_) x = Block(l, x, &pos);
      out.push_back(LayerNorm(x, lnf_w_, lnf_b_).matmul(wte_.transpose()).reshape({vocab_}));
      for (Layer& l : h_) out.push_back(l.cache_k), out.push_back(l.cache_v);  // realized with the logits
      return out;
    });
  }
  Tensor tok = Tensor::from_vector<int32_t>({token}, Shape{1, 1});
  std::vector<float> logits = (*step_)({tok, position_.bind(pos_).tensor()})[0].to_vector<float>();
  ++pos_;
  return logits;
}

}  // namespace tg::apps
