// The byte-level GPT (apps/char_gpt.h): model, corpus, batches and sampling.
#include "apps/char_gpt.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tg::apps {

std::map<std::string, std::string> GptConfig::ToMetadata() const {
  return {{"vocab", std::to_string(vocab)}, {"context", std::to_string(context)}, {"dim", std::to_string(dim)},
          {"layers", std::to_string(layers)}, {"heads", std::to_string(heads)}};
}

GptConfig GptConfig::FromMetadata(const std::map<std::string, std::string>& metadata) {
  GptConfig c;
  for (auto [key, field] : {std::pair{"vocab", &c.vocab}, {"context", &c.context}, {"dim", &c.dim},
                            {"layers", &c.layers}, {"heads", &c.heads}}) {
    auto it = metadata.find(key);
    if (it == metadata.end()) throw Error(std::string("gpt checkpoint: metadata lacks \"") + key + "\"");
    try {
      *field = std::stoll(it->second);
    } catch (const std::exception&) {
      throw Error(std::string("gpt checkpoint: metadata \"") + key + "\" is not an integer: " + it->second);
    }
  }
  return c;
}

GptBlock::GptBlock(int64_t dim, int64_t heads)
    : heads(heads), ln1(dim), attn(dim, 3 * dim), proj(dim, dim), ln2(dim), fc(dim, 4 * dim), out(4 * dim, dim) {}

Tensor GptBlock::operator()(const Tensor& x) const {
  int64_t b = x.shape()[0], t = x.shape()[1], d = x.shape()[2];
  // (b, t, 3, heads, d/heads) -> three (b, heads, t, d/heads)
  Tensor qkv = attn(ln1(x)).reshape({b, t, 3, heads, d / heads}).permute({2, 0, 3, 1, 4});
  Tensor q = qkv[{0}], k = qkv[{1}], v = qkv[{2}];
  Tensor y = q.scaled_dot_product_attention(k, v, std::nullopt, 0.0, /*is_causal=*/true);
  Tensor h = x + proj(y.permute({0, 2, 1, 3}).reshape({b, t, d}));
  return h + out(fc(ln2(h)).gelu());
}

Tensor GptBlock::Step(const Tensor& x, const Tensor& pos, Tensor& cache_k, Tensor& cache_v) const {
  const int64_t d = x.shape()[2], context = cache_k.shape()[2];
  Tensor qkv = attn(ln1(x)).reshape({1, 1, 3, heads, d / heads}).permute({2, 0, 3, 1, 4});
  Tensor here = Tensor::arange(0, context, 1, dtypes::int32).reshape({1, 1, context, 1}) == pos.reshape({1, 1, 1, 1});
  cache_k.assign(here.where(qkv[{1}], cache_k));  // one slot written: the assign stores only what changes
  cache_v.assign(here.where(qkv[{2}], cache_v));
  Tensor length = pos + 1;
  Tensor y = qkv[{0}].scaled_dot_product_attention(cache_k.shrink_to(2, length), cache_v.shrink_to(2, length));
  Tensor h = x + proj(y.permute({0, 2, 1, 3}).reshape({1, 1, d}));
  return h + out(fc(ln2(h)).gelu());
}

CharGpt::CharGpt(const GptConfig& config)
    : config(config), tok(config.vocab, config.dim), pos(config.context, config.dim), ln_f(config.dim),
      head(config.dim, config.vocab) {
  if (config.dim % config.heads != 0) throw Error("gpt: --dim must be a multiple of --heads");
  for (int64_t i = 0; i < config.layers; ++i) blocks.emplace_back(config.dim, config.heads);
}

Tensor CharGpt::operator()(const Tensor& tokens) const {
  int64_t t = tokens.shape()[1];
  if (t > config.context) throw Error("gpt: sequence of " + std::to_string(t) + " is longer than the context");
  Tensor x = tok(tokens) + pos(Tensor::arange(0, t, 1, dtypes::int32));
  for (const GptBlock& block : blocks) x = block(x);
  return head(ln_f(x));
}

std::string LoadCorpus(const std::string& path) {
  std::vector<std::filesystem::path> files;
  if (!path.empty()) {
    files.push_back(path);
  } else {
    const std::filesystem::path dir = "/usr/share/common-licenses";
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_regular_file() && !entry.is_symlink()) files.push_back(entry.path());  // GPL -> GPL-3 etc.
    if (ec) throw Error("gpt: cannot list " + dir.string() + " (" + ec.message() + "); pass --text FILE");
    std::sort(files.begin(), files.end());
  }
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error("gpt: cannot read " + file.string());
    std::ostringstream buf;
    buf << in.rdbuf();
    text += buf.str();
  }
  if (text.size() < 1024) throw Error("gpt: the corpus has " + std::to_string(text.size()) + " bytes; need >= 1024");
  return text;
}

std::pair<Tensor, Tensor> SampleBatch(const std::string& text, int64_t batch, int64_t context, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> start(0, text.size() - context - 1);
  std::vector<int32_t> x(batch * context), y(batch * context);
  for (int64_t b = 0; b < batch; ++b) {
    size_t s = start(rng);
    for (int64_t i = 0; i < context; ++i) {
      x[b * context + i] = static_cast<unsigned char>(text[s + i]);
      y[b * context + i] = static_cast<unsigned char>(text[s + i + 1]);
    }
  }
  return {Tensor::from_vector(x, Shape{batch, context}), Tensor::from_vector(y, Shape{batch, context})};
}

namespace {

// Draws from |logits| at |temperature| among the |top_k| largest (host-side: one row of vocab floats).
int DrawToken(std::vector<float> logits, double temperature, int top_k, std::mt19937_64& rng) {
  if (temperature <= 0) return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  std::vector<int> order(logits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  size_t k = top_k > 0 ? std::min<size_t>(top_k, order.size()) : order.size();
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  std::vector<double> weights(k);
  for (size_t i = 0; i < k; ++i) weights[i] = std::exp((logits[order[i]] - logits[order[0]]) / temperature);
  return order[std::discrete_distribution<size_t>(weights.begin(), weights.end())(rng)];
}

}  // namespace

CharGptDecoder::CharGptDecoder(const CharGpt& model)
    : model_(model), position_("pos", 0, model.config.context - 1) {
  const GptConfig& c = model.config;
  for (int64_t i = 0; i < c.layers; ++i)
    for (std::vector<Tensor>* cache : {&cache_k_, &cache_v_})
      cache->push_back(Tensor::zeros({1, c.heads, c.context, c.dim / c.heads}).contiguous().realize());
}

std::vector<float> CharGptDecoder::Step(int byte) {
  const GptConfig& c = model_.config;
  if (pos_ >= c.context) throw Error("gpt: the decoder's context of " + std::to_string(c.context) + " bytes is full");
  if (!step_) {
    step_ = std::make_unique<Jit>([this, c](const std::vector<Tensor>& in) {
      const Tensor& pos = in[1];
      Tensor x = model_.tok(in[0]) + model_.pos(pos.reshape({1})).reshape({1, 1, c.dim});
      for (size_t i = 0; i < model_.blocks.size(); ++i) x = model_.blocks[i].Step(x, pos, cache_k_[i], cache_v_[i]);
      std::vector<Tensor> out{model_.head(model_.ln_f(x)).reshape({c.vocab})};
      for (size_t i = 0; i < model_.blocks.size(); ++i) out.push_back(cache_k_[i]), out.push_back(cache_v_[i]);
      return out;
    });
  }
  Tensor token = Tensor::from_vector<int32_t>({byte}, Shape{1, 1});
  std::vector<float> logits = (*step_)({token, position_.bind(pos_).tensor()})[0].to_vector<float>();
  ++pos_;
  return logits;
}

std::string Sample(const CharGpt& model, const std::string& prompt, int64_t count, double temperature, int top_k,
                   std::mt19937_64& rng) {
  const int64_t context = model.config.context, vocab = model.config.vocab;
  Jit forward([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{model(in[0])}; });
  std::string text = prompt.empty() ? std::string("\n") : prompt;
  CharGptDecoder decoder(model);
  std::vector<float> cached;  // the next byte's logits from the decoder, while it has read all of |text|
  for (size_t i = 0; i < text.size() && static_cast<int64_t>(text.size()) <= context; ++i)
    cached = decoder.Step(static_cast<unsigned char>(text[i]));
  for (int64_t n = 0; n < count; ++n) {
    if (decoder.pos() == static_cast<int64_t>(text.size())) {
      text += static_cast<char>(DrawToken(cached, temperature, top_k, rng));
      if (decoder.pos() < context) cached = decoder.Step(static_cast<unsigned char>(text.back()));
      continue;
    }
    int64_t start = std::max<int64_t>(0, static_cast<int64_t>(text.size()) - context);
    int64_t len = static_cast<int64_t>(text.size()) - start;
    std::vector<int32_t> window(context, 0);  // right padding: causal attention never looks at it
    for (int64_t i = 0; i < len; ++i) window[i] = static_cast<unsigned char>(text[start + i]);
    std::vector<float> logits = forward({Tensor::from_vector(window, Shape{1, context})})[0].to_vector<float>();
    std::vector<float> last(logits.begin() + (len - 1) * vocab, logits.begin() + len * vocab);
    text += static_cast<char>(DrawToken(std::move(last), temperature, top_k, rng));
  }
  return text.substr(prompt.empty() ? 1 : 0);
}

}  // namespace tg::apps
