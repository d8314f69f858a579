// A small GPT (pre-LN transformer blocks, causal self-attention, learned positions) over bytes, and
// the text it trains on. The model of apps/gpt.cc and its smoke test; built from tg::nn (README.md).
#ifndef TG_APPS_CHAR_GPT_H_
#define TG_APPS_CHAR_GPT_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "frontend/nn/nn.h"

namespace tg::apps {

struct GptConfig {
  int64_t vocab = 256;  // bytes: any text file works, and a checkpoint needs no vocabulary file
  int64_t context = 64, dim = 64, layers = 2, heads = 4;

  // For a checkpoint's metadata, so --load can refuse a model of another shape.
  std::map<std::string, std::string> ToMetadata() const;
  static GptConfig FromMetadata(const std::map<std::string, std::string>& metadata);  // tg::Error if incomplete
};

// ln1 -> causal attention -> residual, ln2 -> 4x MLP (GELU) -> residual: GPT-2's pre-LN block.
struct GptBlock {
  GptBlock(int64_t dim, int64_t heads);
  Tensor operator()(const Tensor& x) const;
  void visit(nn::StateVisitor& v) { v("ln1", ln1), v("attn", attn), v("proj", proj), v("ln2", ln2), v("fc", fc), v("out", out); }

  int64_t heads;
  nn::LayerNorm ln1;
  nn::Linear attn, proj;  // attn: dim -> 3 dim (q, k, v)
  nn::LayerNorm ln2;
  nn::Linear fc, out;
};

struct CharGpt {
  explicit CharGpt(const GptConfig& config);
  // |tokens| int32 (batch, t <= context) -> logits (batch, t, vocab).
  Tensor operator()(const Tensor& tokens) const;
  void visit(nn::StateVisitor& v) { v("tok", tok), v("pos", pos), v("blocks", blocks), v("ln_f", ln_f), v("head", head); }

  GptConfig config;
  nn::Embedding tok, pos;
  std::vector<GptBlock> blocks;
  nn::LayerNorm ln_f;
  nn::Linear head;
};

// The training text: |path|'s bytes, or (path empty) every regular file of /usr/share/common-licenses
// concatenated in name order, which every Debian system has. tg::Error when unreadable or too short.
std::string LoadCorpus(const std::string& path = "");

// Random windows of |text|: inputs (batch, context) and the next-byte targets, int32 tensors.
std::pair<Tensor, Tensor> SampleBatch(const std::string& text, int64_t batch, int64_t context, std::mt19937_64& rng);

// Extends |prompt| by |count| bytes, each drawn from the model's next-byte distribution at |temperature|
// (0 = greedy) restricted to the |top_k| likeliest (0 = all). Runs the model on fixed (1, context)
// windows, right-padded, so one JIT serves every step.
std::string Sample(const CharGpt& model, const std::string& prompt, int64_t count, double temperature, int top_k,
                   std::mt19937_64& rng);

}  // namespace tg::apps

#endif  // TG_APPS_CHAR_GPT_H_
