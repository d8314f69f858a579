// apps/llm_model.h. The forward is HF's LlamaModel (MistralModel, Qwen2Model differ only in config):
// x = embed(tokens); per layer q, k, v = the rows of qkv(n1(x)), x += o(attn(rope(q), rope(k), v)) and
// x += down(silu(gate(n2(x))) * up(n2(x))); logits = head(norm(x)), with n = RMSNorm in float32.
#include "apps/llm_model.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "frontend/devices.h"
#include "frontend/variable.h"
#include "ir/error.h"

namespace tg::apps {
namespace {

// |weight| cast to float32 where it was loaded (the CPU, which has every dtype), then copied to |device|.
Tensor FloatOn(const Tensor& weight, const std::string& device) {
  Tensor as_float = weight.cast(dtypes::float32).realize();
  return as_float.device() == device ? as_float : as_float.to(device).realize();
}

// A matmul weight as LlmModel keeps it on |device|: a float32 view of what is stored. A float16 or
// bfloat16 weight stays in its dtype where the device computes in it (copied there once) and is cast
// inside the kernels that read it; a float32 weight already on the device is kept as given, so a lazy one
// (a GGUF tensor's ggml_dequantize over its blocks, apps/llm_gguf.h) is dequantized inside each matmul
// that uses it and never stored as float. Anything else becomes float32 (FloatOn).
Tensor StoredOn(const Tensor& weight, const std::string& device) {
  const DType dtype = weight.dtype();
  if (dtype == dtypes::float32 && weight.device() == device) return weight;
  if ((dtype == dtypes::float16 || dtype == dtypes::bfloat16) && device_supports(device, dtype)) {
    Tensor on_device = weight.device() == device ? weight : weight.to(device).realize();
    return on_device.cast(dtypes::float32);
  }
  return FloatOn(weight, device);
}

const Tensor& Checked(const nn::StateDict& sd, const std::string& name, const Shape& shape) {
  auto it = sd.find(name);
  if (it == sd.end()) throw Error("llm checkpoint: missing tensor \"" + name + "\"");
  if (it->second.shape() != shape)
    throw Error("llm checkpoint: \"" + name + "\" is " + ShapeString(it->second.shape()) + ", expected " +
                ShapeString(shape) + " (from the model's config)");
  return it->second;
}

Tensor Take(const nn::StateDict& sd, const std::string& name, const Shape& shape) {
  return StoredOn(Checked(sd, name, shape), default_device());
}

// Norm weights and biases: small, so plain float32.
Tensor TakeFloat(const nn::StateDict& sd, const std::string& name, const Shape& shape) {
  return FloatOn(Checked(sd, name, shape), default_device());
}

Tensor Linear(const Tensor& x, const Tensor& w) { return x.matmul(w.transpose()); }

// The checkpoint's q, k and v projection tensors |part| ("weight" or "bias"), each checked against the
// config, in that order; or the one self_attn.qkv_proj tensor holding their rows in that order, as
// LoadLlmGguf gives quantized ones (apps/llm_gguf.h). |row| is the shape of one row ({} for a bias).
std::vector<Tensor> QkvParts(const nn::StateDict& sd, const std::string& layer, const std::string& part,
                             const LlmConfig& c, const Shape& row) {
  auto rows = [&](int64_t n) {
    Shape shape{n * c.head_dim};
    shape.insert(shape.end(), row.begin(), row.end());
    return shape;
  };
  const std::string fused = layer + "self_attn.qkv_proj." + part;
  if (sd.count(fused) != 0) return {Checked(sd, fused, rows(c.heads + 2 * c.kv_heads))};
  return {Checked(sd, layer + "self_attn.q_proj." + part, rows(c.heads)),
          Checked(sd, layer + "self_attn.k_proj." + part, rows(c.kv_heads)),
          Checked(sd, layer + "self_attn.v_proj." + part, rows(c.kv_heads))};
}

// |parts| joined along their rows (axis 0).
Tensor JoinRows(const std::vector<Tensor>& parts) {
  return parts.size() == 1 ? parts[0] : parts[0].cat({parts.begin() + 1, parts.end()}, 0);
}

// The q, k and v projection weights |parts| on |device|: one weight of their rows in order where they are
// stored data, so a one-token step computes the three in one kernel launch instead of three. They are
// joined in their dtype and stored once (then StoredOn, so float16 stays float16): the matmul reads one
// buffer. Lazy parts (GGUF weights quantized in different types) stay three weights, each its own
// matmul: storing them would make a float32 copy of quantized weights, and joining them as a view would
// make the one kernel dequantize every element in every part's type.
std::vector<Tensor> QkvWeightsOn(const std::vector<Tensor>& parts, const std::string& device) {
  auto stored = [](const Tensor& t) { return t.is_stored(); };
  if (std::all_of(parts.begin(), parts.end(), stored)) return {StoredOn(JoinRows(parts).realize(), device)};
  std::vector<Tensor> apart;
  for (const Tensor& part : parts) apart.push_back(StoredOn(part, device));
  return apart;
}

// gate and up as views of one weight holding gate's row i, then up's row i, for every i: SwiGLU's one
// kernel then reads one stream of rows instead of two side by side. The weight is the checkpoint's
// mlp.gate_up_interleaved (LoadLlmGguf gives quantized ones so), or gate and up joined so and stored
// once where both are stored data; lazy ones of different types stay two weights.
std::pair<Tensor, Tensor> GateUpOn(const nn::StateDict& sd, const std::string& layer, int64_t f, int64_t d,
                                   const std::string& device) {
  std::optional<Tensor> rows_in_turn;
  if (const std::string fused = layer + "mlp.gate_up_interleaved.weight"; sd.count(fused) != 0) {
    rows_in_turn = StoredOn(Checked(sd, fused, {2 * f, d}), device);
  } else {
    const Tensor &gate = Checked(sd, layer + "mlp.gate_proj.weight", {f, d}),
                 &up = Checked(sd, layer + "mlp.up_proj.weight", {f, d});
    if (!gate.is_stored() || !up.is_stored()) return {StoredOn(gate, device), StoredOn(up, device)};
    rows_in_turn = StoredOn(gate.reshape({f, 1, d}).cat({up.reshape({f, 1, d})}, 1).realize(), device);
  }
  Tensor both = rows_in_turn->reshape({f, 2, d});
  return {both.shrink({{0, f}, {0, 1}, {0, d}}).reshape({f, d}), both.shrink({{0, f}, {1, 2}, {0, d}}).reshape({f, d})};
}

// q, k and v of the normed input |y| (1, t, d), |rows| (their widths) each: one matmul over a joined
// weight, then split, or one per weight; plus qwen2's joined |bias|, added before the split (added to
// each part after it, the schedule takes one kernel more per layer).
std::vector<Tensor> ProjectQkv(const Tensor& y, const std::vector<Tensor>& weights, const std::optional<Tensor>& bias,
                               const std::vector<int64_t>& rows) {
  if (weights.size() == 1) {
    Tensor qkv = Linear(y, weights[0]);
    return (bias ? qkv + *bias : qkv).split(rows, -1);
  }
  std::vector<Tensor> qkv, biases = bias ? bias->split(rows, 0) : std::vector<Tensor>{};
  for (size_t i = 0; i < weights.size(); ++i)
    qkv.push_back(bias ? Linear(y, weights[i]) + biases[i] : Linear(y, weights[i]));
  return qkv;
}

// tg::nn::RMSNorm over the checkpoint's weight.
nn::RMSNorm NormOf(Tensor weight, double eps) {
  nn::RMSNorm norm(weight.shape()[0], eps);
  norm.weight = std::move(weight);
  return norm;
}

// (..., d) -> (..., d) with the halves swapped and the second negated: HF's rotate_half.
Tensor RotateHalf(const Tensor& x) {
  std::vector<Tensor> halves = x.chunk(2, -1);
  return (-halves[1]).cat({halves[0]}, -1);
}

}  // namespace

LlmModel::Layer LlmModel::TakeLayer(nn::StateDict& sd, const LlmConfig& c, int64_t index, int64_t context) {
  const int64_t d = c.hidden_size, hd = c.head_dim, f = c.intermediate_size;
  const std::string p = "model.layers." + std::to_string(index) + ".";
  std::optional<Tensor> qkv_bias;
  if (c.qkv_bias) qkv_bias = FloatOn(JoinRows(QkvParts(sd, p, "bias", c, {})), default_device());
  // In the checkpoint's order, so the first tensor missing is the one named.
  nn::RMSNorm attn_norm = NormOf(TakeFloat(sd, p + "input_layernorm.weight", {d}), c.rms_norm_eps);
  std::vector<Tensor> qkv = QkvWeightsOn(QkvParts(sd, p, "weight", c, {d}), default_device());
  Tensor o = Take(sd, p + "self_attn.o_proj.weight", {d, c.heads * hd});
  nn::RMSNorm mlp_norm = NormOf(TakeFloat(sd, p + "post_attention_layernorm.weight", {d}), c.rms_norm_eps);
  auto [gate, up] = GateUpOn(sd, p, f, d, default_device());
  return Layer{std::move(attn_norm),
               std::move(qkv),
               std::move(o),
               std::move(mlp_norm),
               std::move(gate),
               std::move(up),
               Take(sd, p + "mlp.down_proj.weight", {d, f}),
               std::move(qkv_bias),
               Tensor::zeros({1, c.kv_heads, context, hd}).contiguous().realize(),
               Tensor::zeros({1, c.kv_heads, context, hd}).contiguous().realize()};
}

LlmModel::LlmModel(const LlmConfig& config, nn::StateDict sd, int64_t context)
    : config_(config), context_(context > 0 ? context : config.max_positions),
      rope_(MakeRopeTables(config, context_)),
      embed_(Take(sd, "model.embed_tokens.weight", {config.vocab_size, config.hidden_size})),
      norm_(NormOf(TakeFloat(sd, "model.norm.weight", {config.hidden_size}), config.rms_norm_eps)),
      head_(config.tie_word_embeddings ? embed_ : Take(sd, "lm_head.weight", {config.vocab_size, config.hidden_size})),
      position_("pos", 0, context_ - 1) {
  for (int64_t i = 0; i < config_.layers; ++i) layers_.push_back(TakeLayer(sd, config_, i, context_));
}

std::map<std::string, int64_t> LlmModel::weight_bytes() const {
  std::vector<const Tensor*> weights{&embed_, &head_};
  std::vector<const std::optional<Tensor>*> optional{&norm_.weight};
  for (const Layer& l : layers_) {
    for (const Tensor& w : l.qkv) weights.push_back(&w);
    for (const Tensor* w : {&l.o, &l.gate, &l.up, &l.down}) weights.push_back(w);
    for (const std::optional<Tensor>* w : {&l.attn_norm.weight, &l.mlp_norm.weight, &l.qkv_bias})
      optional.push_back(w);
  }
  for (const std::optional<Tensor>* w : optional)
    if (w->has_value()) weights.push_back(&**w);
  std::set<const UOp*> seen;
  std::map<std::string, int64_t> bytes;
  for (const Tensor* w : weights)
    for (const UOpRef& u : w->uop()->toposort())
      if (u->op() == Ops::kBuffer && seen.insert(u.get()).second)
        bytes[std::string(u->dtype().name())] += u->numel() * static_cast<int64_t>(u->dtype().itemsize());
  return bytes;
}

Tensor LlmModel::Rotate(const Tensor& x, const Tensor& positions) const {
  Tensor cos = rope_.cos[{positions}], sin = rope_.sin[{positions}];  // (t, head_dim)
  return x * cos + RotateHalf(x) * sin;
}

// q (1, heads, t, hd); k, v (1, kv_heads, t, hd). Without a cache the keys are this sequence's own; with
// one, they are written to the cache at |positions| and the first |span| slots are attended.
Tensor LlmModel::Attention(Layer& l, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& positions,
                           const CacheUse* cache) {
  const int64_t t = q.shape()[2];
  Tensor keys = k, values = v, slots = positions;
  if (cache != nullptr) {
    Tensor all = Tensor::arange(0, context_, 1, dtypes::int32);
    // One-hot (context, t) @ (.., t, hd) places row i at slot positions[i], exactly (one 1 per row).
    Tensor onehot = all.reshape({context_, 1}) == positions.reshape({1, t});
    // The positions are consecutive, so the slots written are a range (a compare, not a reduce).
    Tensor written = ((all >= positions.shrink({{0, 1}})) & (all <= positions.shrink({{t - 1, t}})))
                         .reshape({1, 1, context_, 1});
    Tensor placed_k = onehot.cast(dtypes::float32).matmul(k), placed_v = onehot.cast(dtypes::float32).matmul(v);
    // Written in place (handles share state: the member sees the new value) and read back from the cache,
    // so the new slots are stored once and attention reads the cache itself, not a second copy of it.
    Tensor(l.cache_k).assign(written.where(placed_k, l.cache_k));
    Tensor(l.cache_v).assign(written.where(placed_v, l.cache_v));
    const int64_t hd = config_.head_dim, kv = config_.kv_heads;
    if (cache->length != nullptr) {  // a step: the slots up to its position, every position one kernel
      keys = l.cache_k.shrink_to(2, *cache->length);
      values = l.cache_v.shrink_to(2, *cache->length);
      slots = Tensor::arange(0, context_, 1, dtypes::int32);
    } else {
      keys = l.cache_k.shrink({{0, 1}, {0, kv}, {0, cache->span}, {0, hd}});
      values = l.cache_v.shrink({{0, 1}, {0, kv}, {0, cache->span}, {0, hd}});
      slots = Tensor::arange(0, cache->span, 1, dtypes::int32);
    }
  }
  const int64_t groups = config_.heads / config_.kv_heads;
  if (groups > 1) keys = keys.repeat_interleave(groups, 1), values = values.repeat_interleave(groups, 1);
  // Query i sees key slot j when j <= position i (and, with a sliding window, position i - j < window).
  // A step's cut to pos + 1 already hides the later slots.
  Tensor query_pos = positions.reshape({t, 1}), key_pos = slots.reshape({1, slots.shape()[0]});
  std::optional<Tensor> visible;
  if (cache == nullptr || cache->length == nullptr) visible = key_pos <= query_pos;
  if (config_.sliding_window > 0) {
    Tensor inside = (query_pos - key_pos) < config_.sliding_window;
    visible = visible ? (*visible & inside) : inside;
  }
  if (visible) visible = visible->reshape({1, 1, t, slots.shape()[0]});
  return q.scaled_dot_product_attention(keys, values, visible);
}

Tensor LlmModel::Block(Layer& l, const Tensor& x, const Tensor& positions, const CacheUse* cache) {
  const LlmConfig& c = config_;
  const int64_t t = x.shape()[1], hd = c.head_dim;
  const std::vector<int64_t> rows{c.heads * hd, c.kv_heads * hd, c.kv_heads * hd};
  std::vector<Tensor> qkv = ProjectQkv(l.attn_norm(x), l.qkv, l.qkv_bias, rows);
  Tensor q = Rotate(qkv[0].reshape({1, t, c.heads, hd}).permute({0, 2, 1, 3}), positions);
  Tensor k = Rotate(qkv[1].reshape({1, t, c.kv_heads, hd}).permute({0, 2, 1, 3}), positions);
  Tensor v = qkv[2].reshape({1, t, c.kv_heads, hd}).permute({0, 2, 1, 3});
  Tensor a = Attention(l, q, k, v, positions, cache).permute({0, 2, 1, 3}).reshape({1, t, c.heads * hd});
  Tensor h = x + Linear(a, l.o);
  Tensor z = l.mlp_norm(h);
  return h + Linear(Linear(z, l.gate).silu() * Linear(z, l.up), l.down);
}

Tensor LlmModel::Logits(const Tensor& tokens, const Tensor& positions, const CacheUse* cache) {
  Tensor x = embed_[{tokens}];
  for (Layer& l : layers_) x = Block(l, x, positions, cache);
  return Linear(norm_(x), head_);
}

Tensor LlmModel::Forward(const Tensor& tokens) const {
  const int64_t t = tokens.shape()[1];
  if (t > context_)
    throw Error("llm: " + std::to_string(t) + " tokens exceed the context of " + std::to_string(context_));
  auto* self = const_cast<LlmModel*>(this);  // without a cache, Logits writes nothing
  return self->Logits(tokens, Tensor::arange(0, t, 1, dtypes::int32), nullptr);
}

int64_t LlmModel::Bucket(int64_t end) const {
  int64_t span = 16;
  while (span < end) span *= 2;
  return std::min(span, context_);
}

void LlmModel::CheckFits(const std::vector<int>& tokens) const {
  if (tokens.empty()) throw Error("llm: no tokens to feed");
  if (pos_ + static_cast<int64_t>(tokens.size()) > context_)
    throw Error("llm: " + std::to_string(pos_ + tokens.size()) + " positions exceed the context of " +
                std::to_string(context_) + " (see --context)");
  for (int id : tokens)
    if (id < 0 || id >= config_.vocab_size)
      throw Error("llm: token " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(config_.vocab_size));
}

std::vector<float> LlmModel::Prefill(const std::vector<int>& tokens) {
  CheckFits(tokens);
  const int64_t t = static_cast<int64_t>(tokens.size());
  Tensor ids = Tensor::from_vector(std::vector<int32_t>(tokens.begin(), tokens.end()), Shape{1, t});
  // Data, not an arange: an arange from pos_ would bake pos_ into the kernels and recompile each turn.
  std::vector<int32_t> at(t);
  for (int64_t i = 0; i < t; ++i) at[i] = static_cast<int32_t>(pos_ + i);
  Tensor positions = Tensor::from_vector(at, Shape{t});
  CacheUse cache{&positions, Bucket(pos_ + t)};
  Tensor last = Logits(ids, positions, &cache).shrink({{0, 1}, {t - 1, t}, {0, config_.vocab_size}});
  std::vector<Tensor> outs{last};
  for (Layer& l : layers_) outs.push_back(l.cache_k), outs.push_back(l.cache_v);
  Tensor::realize_all(outs);
  pos_ += t;
  return last.to_vector<float>();
}

std::vector<float> LlmModel::Step(int token) {
  CheckFits({token});
  if (!step_) {
    step_ = std::make_unique<Jit>([this](const std::vector<Tensor>& in) {
      Tensor position = in[1].reshape({1}), length = in[1] + 1;
      CacheUse cache{&position, context_, &length};
      std::vector<Tensor> out{Logits(in[0], position, &cache).reshape({config_.vocab_size})};
      for (Layer& l : layers_) out.push_back(l.cache_k), out.push_back(l.cache_v);  // realized with the logits
      return out;
    });
  }
  Tensor tok = Tensor::from_vector<int32_t>({token}, Shape{1, 1});
  // A variable, not data: the kernels take the position as an argument, with no upload per token.
  std::vector<float> logits = (*step_)({tok, position_.bind(pos_).tensor()})[0].to_vector<float>();
  ++pos_;
  return logits;
}

}  // namespace tg::apps
