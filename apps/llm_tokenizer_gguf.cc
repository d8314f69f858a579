// apps/llm_tokenizer.h's FromGguf: llama.cpp's tokenizer.ggml.* keys (src/llama-vocab.cpp, load) filled
// into the tables Parse fills from a tokenizer.json, so both encode with the same BPE.
#include <cmath>
#include <string>
#include <vector>

#include "apps/llm_tokenizer.h"
#include "frontend/nn/gguf.h"
#include "ir/error.h"

namespace tg::apps {
namespace {

// llama.cpp's llama_token_type: the values of tokenizer.ggml.token_type.
enum TokenType : int64_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

const char* const kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word marker

// The metadata of one file, read with errors that name the file and the key.
class TokenizerKeys {
 public:
  TokenizerKeys(const nn::GGUFHeader& header, const std::string& source) : header_(header), source_(source) {}

  const nn::GGUFValue* Find(const std::string& name) const {
    auto it = header_.metadata.find("tokenizer.ggml." + name);
    return it == header_.metadata.end() ? nullptr : &it->second;
  }
  const nn::GGUFValue& Required(const std::string& name) const {
    if (const nn::GGUFValue* v = Find(name)) return *v;
    throw Error(source_ + ": the GGUF metadata lacks tokenizer.ggml." + name + ", which the tokenizer needs");
  }
  // |read| of the value, a type mismatch named by the key.
  template <typename Read>
  auto As(const std::string& name, const nn::GGUFValue& value, Read read) const {
    try {
      return read(value);
    } catch (const Error& e) {
      throw Error(source_ + ": tokenizer.ggml." + name + ": " + e.what());
    }
  }
  std::string String(const std::string& name) const {
    return As(name, Required(name), [](const nn::GGUFValue& v) { return v.as_string(); });
  }
  std::vector<std::string> Strings(const std::string& name) const {
    return As(name, Required(name), [](const nn::GGUFValue& v) { return v.as_strings(); });
  }
  std::vector<int64_t> Ints(const std::string& name) const {
    return As(name, Required(name), [](const nn::GGUFValue& v) {
      std::vector<int64_t> out;
      for (const nn::GGUFValue& item : v.as_array()) out.push_back(item.as_int());
      return out;
    });
  }
  std::vector<double> Floats(const std::string& name) const {
    return As(name, Required(name), [](const nn::GGUFValue& v) {
      std::vector<double> out;
      for (const nn::GGUFValue& item : v.as_array()) out.push_back(item.as_float());
      return out;
    });
  }
  bool Bool(const std::string& name, bool absent) const {
    const nn::GGUFValue* v = Find(name);
    return v ? As(name, *v, [](const nn::GGUFValue& x) { return x.as_bool(); }) : absent;
  }
  // A token id key: -1 when absent, tg::Error when not below |tokens|.
  int Id(const std::string& name, size_t tokens) const {
    const nn::GGUFValue* v = Find(name);
    if (!v) return -1;
    int64_t id = As(name, *v, [](const nn::GGUFValue& x) { return x.as_int(); });
    if (id < 0 || static_cast<size_t>(id) >= tokens)
      throw Error(source_ + ": tokenizer.ggml." + name + " is " + std::to_string(id) + ", not a token id (the vocabulary has " +
                  std::to_string(tokens) + ")");
    return static_cast<int>(id);
  }
  // Fails unless an array key has one entry per token.
  void ExpectOnePerToken(const std::string& name, size_t entries, size_t tokens) const {
    if (entries != tokens)
      throw Error(source_ + ": tokenizer.ggml." + name + " has " + std::to_string(entries) + " entries for the " +
                  std::to_string(tokens) + " tokens of tokenizer.ggml.tokens");
  }

 private:
  const nn::GGUFHeader& header_;
  const std::string& source_;
};

}  // namespace

LlmTokenizer LlmTokenizer::FromGguf(const nn::GGUFHeader& header, const std::string& source) {
  TokenizerKeys keys(header, source);
  const std::string model = keys.String("model");
  if (model != "gpt2" && model != "llama")
    throw Error(source + ": tokenizer.ggml.model \"" + model + "\" is not supported (allowed: gpt2, llama)");
  const std::vector<std::string> tokens = keys.Strings("tokens");
  const std::vector<int64_t> types = keys.Ints("token_type");
  keys.ExpectOnePerToken("token_type", types.size(), tokens.size());
  if (tokens.size() > static_cast<size_t>(INT32_MAX))
    throw Error(source + ": tokenizer.ggml.tokens has " + std::to_string(tokens.size()) + " tokens, more than ids hold");

  LlmTokenizer t;
  for (size_t id = 0; id < tokens.size(); ++id) {
    // as llama.cpp: an empty token gets a name, so it stays a token that Decode knows
    std::string token = tokens[id].empty() ? "[EMPTY_" + std::to_string(id) + "]" : tokens[id];
    t.SetToken(token, static_cast<int>(id), source);
    if (types[id] == kControl || types[id] == kUnknown || types[id] == kUserDefined) {
      t.special_[id] = types[id] != kUserDefined;
      t.added_.emplace_back(token, static_cast<int>(id));
    }
  }
  t.SortAddedTokens();

  bool add_bos = model == "llama";
  if (model == "gpt2") {
    t.byte_level_ = true;
    const nn::GGUFValue* pre_value = keys.Find("pre");
    const std::string pre = pre_value ? keys.String("pre") : "default";
    if (pre == "qwen2") {
      t.split_ = Split::kQwen2;
    } else if (pre == "llama-bpe" || pre == "llama3") {
      t.split_ = Split::kLlama3;
      t.ignore_merges_ = true;
      add_bos = true;
    } else if (pre == "gpt-2" || pre == "default") {
      t.split_ = Split::kGpt2;
    } else {
      throw Error(source + ": tokenizer.ggml.pre \"" + pre +
                  "\" is not supported (allowed: qwen2, llama-bpe, llama3, gpt-2, default)");
    }
    t.MapByteTokens(source);
    const std::vector<std::string> merges = keys.Strings("merges");
    for (size_t rank = 0; rank < merges.size(); ++rank) {
      const std::string& m = merges[rank];
      size_t space = m.find(' ', 1);  // from 1, as llama.cpp: a left side may itself be a space
      if (space == std::string::npos)
        throw Error(source + ": tokenizer.ggml.merges[" + std::to_string(rank) + "] \"" + m + "\" is not \"left right\"");
      t.AddMerge(m.substr(0, space), m.substr(space + 1), static_cast<int>(rank), source);
    }
  } else {
    const std::vector<double> scores = keys.Floats("scores");
    keys.ExpectOnePerToken("scores", scores.size(), tokens.size());
    for (size_t id = 0; id < scores.size(); ++id)
      if (std::isnan(scores[id]))
        throw Error(source + ": tokenizer.ggml.scores[" + std::to_string(id) + "] is NaN (a score orders merges)");
    t.byte_fallback_ = true;
    t.space_ = kSpaceMark;
    if (keys.Bool("add_space_prefix", true)) {
      t.prepend_ = kSpaceMark;
      t.prepend_every_piece_ = true;  // after each added token too, as llama.cpp and HF's Prepend normalizer
      t.strip_leading_space_ = true;
    }
    t.MapByteTokens(source);
    t.MergesFromScores(scores);
    t.unk_ = keys.Id("unknown_token_id", tokens.size());
  }
  int bos = keys.Id("bos_token_id", tokens.size()), eos = keys.Id("eos_token_id", tokens.size());
  if (keys.Bool("add_bos_token", add_bos)) {
    if (bos < 0) throw Error(source + ": tokenizer.ggml.add_bos_token is set but the GGUF metadata lacks tokenizer.ggml.bos_token_id");
    t.prefix_ = {bos};
  }
  if (keys.Bool("add_eos_token", false)) {
    if (eos < 0) throw Error(source + ": tokenizer.ggml.add_eos_token is set but the GGUF metadata lacks tokenizer.ggml.eos_token_id");
    t.suffix_ = {eos};
  }
  return t;
}

}  // namespace tg::apps
