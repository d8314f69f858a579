// A small GPT (pre-LN transformer blocks, causal self-attention, learned positions) over bytes, and
// the text it trains on. The model of apps/gpt.cc and its smoke test; built from tg::nn (README.md).
#ifndef TG_APPS_CHAR_GPT_H_
#define TG_APPS_CHAR_GPT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"

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
  // One token x (1, 1, dim) at position |pos| (an int32 scalar): its key and value are written into the
  // caches (1, heads, context, dim / heads) in place, and it attends over the caches cut to pos + 1.
  Tensor Step(const Tensor& x, const Tensor& pos, Tensor& cache_k, Tensor& cache_v) const;
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

// Feeds a text one byte at a time through a KV cache (each block's keys and values of the bytes so far)
// under one tg::Jit capture for every position: the position is a tg::Variable and attention loops over
// the cache cut to pos + 1, so nothing compiles after the first two bytes (docs/variables.md).
class CharGptDecoder {
 public:
  explicit CharGptDecoder(const CharGpt& model);  // |model| must outlive the decoder
  // The next byte's logits (vocab) after |byte| at position pos(); tg::Error once the context is full.
  std::vector<float> Step(int byte);
  int64_t pos() const { return pos_; }

 private:
  const CharGpt& model_;
  std::vector<Tensor> cache_k_, cache_v_;  // per block
  Variable position_;
  std::unique_ptr<Jit> step_;
  int64_t pos_ = 0;
};

// Extends |prompt| by |count| bytes, each drawn from the model's next-byte distribution at |temperature|
// (0 = greedy) restricted to the |top_k| likeliest (0 = all). While the text fits the context, each byte is
// one step of a CharGptDecoder; once it is longer, the model runs on the last context-many bytes under one
// tg::Jit (learned positions start at the window, so a window that slides cannot reuse cached keys).
std::string Sample(const CharGpt& model, const std::string& prompt, int64_t count, double temperature, int top_k,
                   std::mt19937_64& rng);

}  // namespace tg::apps

#endif  // TG_APPS_CHAR_GPT_H_
