// apps/llm_gguf.h, after llama.cpp's names (gguf-py's constants.py: LLM_KV_*, MODEL_TENSOR_*) and its
// converter (convert_hf_to_gguf.py: LlamaModel.permute, the only reordering it does to these tensors).
#include "apps/llm_gguf.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "frontend/devices.h"
#include "frontend/nn/quant.h"
#include "ir/error.h"

namespace tg::apps {
namespace {

// The metadata of |path| under the architecture's prefix, read with errors naming the key.
struct Metadata {
  const nn::GGUFHeader& header;
  const std::string& path;
  std::string arch;

  [[noreturn]] void Fail(const std::string& what) const { throw Error(path + ": " + what); }

  const nn::GGUFValue* Find(const std::string& key) const {
    auto it = header.metadata.find(key);
    return it == header.metadata.end() ? nullptr : &it->second;
  }
  int64_t Size(const std::string& key) const {
    const nn::GGUFValue* v = Find(key);
    if (v == nullptr) Fail("GGUF metadata has no \"" + key + "\" (a positive integer)");
    int64_t n = v->as_int();
    if (n <= 0) Fail("GGUF metadata \"" + key + "\" is " + std::to_string(n) + ", expected a positive integer");
    return n;
  }
  int64_t OptionalSize(const std::string& key, int64_t fallback) const { return Find(key) ? Size(key) : fallback; }
  double Positive(const std::string& key, std::optional<double> fallback) const {
    const nn::GGUFValue* v = Find(key);
    if (v == nullptr) {
      if (!fallback) Fail("GGUF metadata has no \"" + key + "\" (a positive number)");
      return *fallback;
    }
    double x = v->as_float();
    if (!(x > 0)) Fail("GGUF metadata \"" + key + "\" is " + std::to_string(x) + ", expected a positive number");
    return x;
  }
  std::string Key(const std::string& suffix) const { return arch + "." + suffix; }
};

RopeScaling ParseRopeScaling(const Metadata& m) {
  RopeScaling s;
  const nn::GGUFValue* type = m.Find(m.Key("rope.scaling.type"));
  if (type != nullptr) {
    const std::string& kind = type->as_string();
    if (kind == "none") return s;
    if (kind != "linear")
      m.Fail("GGUF metadata \"" + m.Key("rope.scaling.type") + "\" is \"" + kind + "\", not supported (allowed: none, linear)");
    s.kind = RopeScaling::Kind::kLinear;
    s.factor = m.Positive(m.Key("rope.scaling.factor"), std::nullopt);
  } else if (m.Find(m.Key("rope.scale_linear")) != nullptr) {  // what older converters wrote
    s.factor = m.Positive(m.Key("rope.scale_linear"), std::nullopt);
    if (s.factor != 1.0) s.kind = RopeScaling::Kind::kLinear;
  }
  return s;
}

const nn::GGUFTensorInfo* FindTensor(const nn::GGUFHeader& header, const std::string& name) {
  for (const nn::GGUFTensorInfo& t : header.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

LlmConfig ConfigOf(const Metadata& m) {
  LlmConfig c;
  c.model_type = m.arch;
  c.hidden_size = m.Size(m.Key("embedding_length"));
  c.layers = m.Size(m.Key("block_count"));
  c.intermediate_size = m.Size(m.Key("feed_forward_length"));
  c.heads = m.Size(m.Key("attention.head_count"));
  c.kv_heads = m.OptionalSize(m.Key("attention.head_count_kv"), c.heads);
  if (c.heads % c.kv_heads != 0)
    m.Fail(m.Key("attention.head_count") + " " + std::to_string(c.heads) + " is not a multiple of " +
           m.Key("attention.head_count_kv") + " " + std::to_string(c.kv_heads));
  if (m.Find(m.Key("attention.key_length")) == nullptr && c.hidden_size % c.heads != 0)
    m.Fail(m.Key("embedding_length") + " " + std::to_string(c.hidden_size) + " is not divisible by " +
           m.Key("attention.head_count") + " " + std::to_string(c.heads) + " (and there is no " +
           m.Key("attention.key_length") + ")");
  c.head_dim = m.OptionalSize(m.Key("attention.key_length"), c.hidden_size / c.heads);
  if (c.head_dim % 2 != 0) m.Fail("head size " + std::to_string(c.head_dim) + " is odd; rotary embeddings need it even");
  if (m.OptionalSize(m.Key("attention.value_length"), c.head_dim) != c.head_dim)
    m.Fail(m.Key("attention.value_length") + " differs from the key length " + std::to_string(c.head_dim) +
           " (allowed: equal)");
  if (m.OptionalSize(m.Key("rope.dimension_count"), c.head_dim) != c.head_dim)
    m.Fail(m.Key("rope.dimension_count") + " " + std::to_string(m.Size(m.Key("rope.dimension_count"))) +
           " rotates part of each head; only whole heads (" + std::to_string(c.head_dim) + ") are supported");
  c.max_positions = m.Size(m.Key("context_length"));
  c.rms_norm_eps = m.Positive(m.Key("attention.layer_norm_rms_epsilon"), std::nullopt);
  c.rope_theta = m.Positive(m.Key("rope.freq_base"), 10000.0);
  c.rope_scaling = ParseRopeScaling(m);
  const nn::GGUFTensorInfo* embed = FindTensor(m.header, "token_embd.weight");
  if (embed == nullptr) m.Fail("has no tensor \"token_embd.weight\" (the token embedding)");
  if (embed->shape.size() != 2 || embed->shape[1] != c.hidden_size)
    m.Fail("tensor \"token_embd.weight\" is " + ShapeString(embed->shape) + ", expected (vocabulary, " +
           std::to_string(c.hidden_size) + ") (" + m.Key("embedding_length") + ")");
  c.vocab_size = embed->shape[0];
  if (const nn::GGUFValue* tokens = m.Find("tokenizer.ggml.tokens");
      tokens != nullptr && static_cast<int64_t>(tokens->as_array().size()) > c.vocab_size)
    m.Fail("tokenizer.ggml.tokens has " + std::to_string(tokens->as_array().size()) + " tokens but token_embd.weight " +
           std::to_string(c.vocab_size) + " rows: the tokenizer does not belong to this model");
  c.tie_word_embeddings = FindTensor(m.header, "output.weight") == nullptr;
  c.qkv_bias = c.model_type == "qwen2" || FindTensor(m.header, "blk.0.attn_q.bias") != nullptr;
  if (const nn::GGUFValue* bos = m.Find("tokenizer.ggml.bos_token_id")) c.bos_token_id = static_cast<int>(bos->as_int());
  for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"})
    if (const nn::GGUFValue* id = m.Find(key)) {
      int v = static_cast<int>(id->as_int());
      if (std::find(c.eos_token_ids.begin(), c.eos_token_ids.end(), v) == c.eos_token_ids.end()) c.eos_token_ids.push_back(v);
    }
  return c;
}

// One GGUF tensor LlmModel reads: its HF name and shape, and for llama's Q and K the heads whose rows the
// converter permuted.
struct Wanted {
  std::string hf_name;
  Shape shape;
  int64_t permuted_heads = 0;
};

std::map<std::string, Wanted> WantedTensors(const LlmConfig& c) {
  const int64_t d = c.hidden_size, hd = c.head_dim, f = c.intermediate_size, q = c.heads * hd, kv = c.kv_heads * hd;
  const bool permuted = c.model_type == "llama";
  std::map<std::string, Wanted> w{{"token_embd.weight", {"model.embed_tokens.weight", {c.vocab_size, d}}},
                                  {"output_norm.weight", {"model.norm.weight", {d}}}};
  if (!c.tie_word_embeddings) w["output.weight"] = {"lm_head.weight", {c.vocab_size, d}};
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string g = "blk." + std::to_string(i) + ".", h = "model.layers." + std::to_string(i) + ".";
    w[g + "attn_norm.weight"] = {h + "input_layernorm.weight", {d}};
    w[g + "attn_q.weight"] = {h + "self_attn.q_proj.weight", {q, d}, permuted ? c.heads : 0};
    w[g + "attn_k.weight"] = {h + "self_attn.k_proj.weight", {kv, d}, permuted ? c.kv_heads : 0};
    w[g + "attn_v.weight"] = {h + "self_attn.v_proj.weight", {kv, d}};
    w[g + "attn_output.weight"] = {h + "self_attn.o_proj.weight", {d, q}};
    w[g + "ffn_norm.weight"] = {h + "post_attention_layernorm.weight", {d}};
    w[g + "ffn_gate.weight"] = {h + "mlp.gate_proj.weight", {f, d}};
    w[g + "ffn_up.weight"] = {h + "mlp.up_proj.weight", {f, d}};
    w[g + "ffn_down.weight"] = {h + "mlp.down_proj.weight", {d, f}};
    if (c.qkv_bias) {
      w[g + "attn_q.bias"] = {h + "self_attn.q_proj.bias", {q}, permuted ? c.heads : 0};
      w[g + "attn_k.bias"] = {h + "self_attn.k_proj.bias", {kv}, permuted ? c.kv_heads : 0};
      w[g + "attn_v.bias"] = {h + "self_attn.v_proj.bias", {kv}};
    }
  }
  return w;
}

// |t| (its first axis running over |rows| rows, each of the same number of elements or blocks) with the
// rows of every head in HF's order: the converter's permute(w, heads) took HF row (head, half, i) to
// (head, i, 2) order; this is its inverse, reshape (heads, rows / heads / 2, 2) -> swap the last two.
Tensor UnpermuteRows(const Tensor& t, int64_t rows, int64_t heads) {
  const int64_t per_row = t.numel() / rows;
  return t.reshape({heads, rows / heads / 2, 2, per_row}).permute({0, 2, 1, 3}).reshape(t.shape());
}

// rope_freqs.weight: head_dim / 2 positive divisors of the rotary frequencies (llama3 scaling, as
// llama.cpp's converter computes it from HF's rope_scaling).
std::vector<double> FrequencyDivisors(const Metadata& m, const Tensor& t, const LlmConfig& c) {
  if (t.shape() != Shape{c.head_dim / 2} || t.dtype() != dtypes::float32)
    m.Fail("tensor \"rope_freqs.weight\" is " + t.dtype().name() + " " + ShapeString(t.shape()) + ", expected float32 (" +
           std::to_string(c.head_dim / 2) + ") (one divisor per rotary frequency)");
  std::vector<double> divisors;
  for (float v : t.to_vector<float>()) {
    if (!(v > 0)) m.Fail("tensor \"rope_freqs.weight\" holds " + std::to_string(v) + ", expected positive divisors");
    divisors.push_back(v);
  }
  return divisors;
}

// A tensor LlmModel reads, as the file stores it: |data| holds the blocks of a quantized type (in HF's
// row order), else the values.
struct Stored {
  Tensor data;
  nn::GGMLType type;
  Shape shape;
  bool quantized;
};

// The weight LlmModel takes: a quantized one is the lazy dequantization of its blocks.
Tensor WeightOf(const Stored& s) { return s.quantized ? nn::ggml_dequantize_repacked(s.data, s.type, s.shape) : s.data; }

// Layer |h|'s q, k and v projections, when quantized in one type, replaced by self_attn.qkv_proj, their
// rows in that order: their blocks are concatenated (each block lies within one row) and stored once on
// the device, so the one matmul LlmModel computes them with reads one buffer of blocks (a view joining
// the three would read three, with a gated load each). Unquantized ones stay apart for LlmModel to join
// in their dtype; ones of different types stay three matmuls there, as one kernel over them would
// dequantize every element in both types.
void FuseQkv(std::map<std::string, Stored>& tensors, const std::string& h) {
  const std::string names[] = {h + "self_attn.q_proj.weight", h + "self_attn.k_proj.weight", h + "self_attn.v_proj.weight"};
  const Stored &q = tensors.at(names[0]), &k = tensors.at(names[1]), &v = tensors.at(names[2]);
  if (!q.quantized || k.type != q.type || v.type != q.type) return;
  Stored fused{q.data.cat({k.data, v.data}, 0).realize(), q.type, {q.shape[0] + k.shape[0] + v.shape[0], q.shape[1]}, true};
  for (const std::string& name : names) tensors.erase(name);
  tensors.emplace(h + "self_attn.qkv_proj.weight", std::move(fused));
}

// Layer |h|'s gate and up projections, when quantized in one type, replaced by mlp.gate_up_interleaved:
// gate's row i, then up's row i, for every i (each block lies within one row). SwiGLU's one kernel
// computes silu(gate_i . x) * (up_i . x) per output i: over two weights it reads two streams of rows side
// by side, over these rows one (LlmModel views gate and up in it).
void FuseGateUp(std::map<std::string, Stored>& tensors, const std::string& h) {
  const std::string names[] = {h + "mlp.gate_proj.weight", h + "mlp.up_proj.weight"};
  const Stored &gate = tensors.at(names[0]), &up = tensors.at(names[1]);
  if (!gate.quantized || up.type != gate.type) return;
  const int64_t rows = gate.shape[0], words = gate.data.shape()[1], blocks_per_row = gate.data.shape()[0] / rows;
  auto by_row = [&](const Tensor& blocks) { return blocks.reshape({rows, 1, blocks_per_row, words}); };
  Tensor rows_in_turn = by_row(gate.data).cat({by_row(up.data)}, 1).reshape({2 * rows * blocks_per_row, words});
  Stored fused{rows_in_turn.realize(), gate.type, {2 * rows, gate.shape[1]}, true};
  for (const std::string& name : names) tensors.erase(name);
  tensors.emplace(h + "mlp.gate_up_interleaved.weight", std::move(fused));
}

}  // namespace

bool IsGgufPath(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0; }

LlmGguf LoadLlmGguf(const std::string& path, std::string_view device) {
  const std::string target = device.empty() ? default_device() : std::string(device);
  nn::GGUFFile on_cpu = nn::gguf_load(path, "CPU");
  const nn::GGUFHeader& header = on_cpu.header;
  auto arch = header.metadata.find("general.architecture");
  if (arch == header.metadata.end()) throw Error(path + ": GGUF metadata has no \"general.architecture\" (llama or qwen2)");
  Metadata m{header, path, arch->second.as_string()};
  if (m.arch != "llama" && m.arch != "qwen2")
    m.Fail("general.architecture \"" + m.arch + "\" is not supported (allowed: llama, which mistral files use too, and qwen2)");
  LlmGguf out{ConfigOf(m), {}, header};
  if (FindTensor(header, "rope_freqs.weight") != nullptr)
    out.config.rope_scaling.frequency_divisors = FrequencyDivisors(m, on_cpu.tensors.at("rope_freqs.weight"), out.config);
  // Blocks are read on the device from their own mapping; the other tensors' stay on the CPU.
  std::optional<nn::GGUFFile> on_device;
  if (!on_cpu.blocks.empty() && target != "CPU") on_device = nn::gguf_load(path, target);
  const nn::StateDict& blocks = on_device ? on_device->blocks : on_cpu.blocks;
  std::map<std::string, Wanted> wanted = WantedTensors(out.config);
  std::map<std::string, Stored> stored;  // by HF name
  for (const nn::GGUFTensorInfo& info : header.tensors) {
    auto it = wanted.find(info.name);
    if (it == wanted.end()) {
      out.weights.emplace(info.name, on_cpu.tensors.at(info.name));  // unused by LlmModel; kept under its own name
      continue;
    }
    const Wanted& w = it->second;
    if (info.shape != w.shape)
      m.Fail("tensor \"" + info.name + "\" is " + ShapeString(info.shape) + ", expected " + ShapeString(w.shape) +
             " (from the " + m.arch + ".* metadata)");
    std::optional<nn::GGMLLayout> layout = nn::ggml_layout(static_cast<uint32_t>(info.type));
    const bool quantized = layout && layout->quantized;
    Tensor data = quantized ? blocks.at(info.name) : on_cpu.tensors.at(info.name);
    if (w.permuted_heads > 0) data = UnpermuteRows(data, w.shape[0], w.permuted_heads);
    stored.emplace(w.hf_name, Stored{std::move(data), info.type, info.shape, quantized});
    wanted.erase(it);
  }
  if (!wanted.empty())
    m.Fail("has no tensor \"" + wanted.begin()->first + "\" (" + std::to_string(wanted.size()) +
           " of the tensors a " + m.arch + " model of this config needs are missing)");
  for (int64_t i = 0; i < out.config.layers; ++i) {
    const std::string layer = "model.layers." + std::to_string(i) + ".";
    FuseQkv(stored, layer);
    FuseGateUp(stored, layer);
  }
  for (const auto& [name, s] : stored) out.weights.emplace(name, WeightOf(s));
  return out;
}

}  // namespace tg::apps
