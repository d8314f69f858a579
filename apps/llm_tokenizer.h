// A Hugging Face tokenizer.json of the BPE kind LLaMA-family models ship, or the same tokenizer from a
// GGUF file's tokenizer.ggml.* metadata: byte-level BPE (GPT-2's split, or Qwen2's / LLaMA 3's regex,
// apps/llm_pretokenizer.h) or SentencePiece-style BPE over "▁"-marked text with byte fallback (LLaMA 2,
// Mistral), plus added/special tokens and the post-processor's BOS. Text in for apps/llm.cc (README.md's
// Apps section; docs/gguf.md for the GGUF keys).
#ifndef TG_APPS_LLM_TOKENIZER_H_
#define TG_APPS_LLM_TOKENIZER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nlohmann/json_fwd.hpp"

namespace tg::nn {
struct GGUFHeader;
}

namespace tg::apps {

class LlmTokenizer {
 public:
  // Reads |path|; tg::Error when it cannot be read, or as Parse.
  static LlmTokenizer Load(const std::string& path);
  // tg::Error naming |source| and the fault: invalid JSON, a model other than BPE, a pre-tokenizer or
  // normalizer it does not implement, a merge of tokens outside the vocabulary, a byte-level vocabulary
  // without all 256 byte symbols, byte fallback without all <0xXX> tokens, or an added token whose id
  // the vocabulary gives to another token; a value of the wrong JSON type anywhere.
  static LlmTokenizer Parse(std::string_view json_text, const std::string& source);
  // llama.cpp's keys: tokenizer.ggml.model "gpt2" (byte-level BPE with .merges; .pre "qwen2", "llama-bpe"
  // or "llama3", "gpt-2" or "default", absent meaning "default") or "llama" (SentencePiece BPE whose merges
  // come from .scores as Hugging Face's converter derives them), .tokens, .token_type (CONTROL, UNKNOWN and
  // USER_DEFINED tokens are added tokens, the first two special), .bos_token_id, .eos_token_id,
  // .unknown_token_id, .add_bos_token, .add_eos_token. tg::Error naming |source| and the fault: an unknown
  // model or .pre, a missing key, a value of the wrong type, .tokens/.scores/.token_type of different
  // lengths, a merge naming a non-token, a token id out of range, a missing byte token.
  static LlmTokenizer FromGguf(const nn::GGUFHeader& header, const std::string& source);

  // Added tokens found in |text| become their ids; the rest is normalized, split and merged. With
  // |add_special|, the post-processor's tokens (LLaMA's <s>) are put around the result.
  std::vector<int> Encode(std::string_view text, bool add_special = true) const;
  // ids -> UTF-8 bytes (possibly an incomplete character at the end). Special tokens are left out with
  // |skip_special|. tg::Error on an id outside the vocabulary.
  std::string Decode(const std::vector<int>& ids, bool skip_special = true) const;

  std::optional<int> Find(std::string_view token) const;  // a vocabulary or added token's id
  bool IsSpecial(int id) const;
  int size() const { return static_cast<int>(tokens_.size()); }  // 1 + the largest id
  bool byte_level() const { return byte_level_; }

 private:
  enum class Split { kNone, kGpt2, kQwen2, kLlama3, kMetaspace };
  static LlmTokenizer ParseJson(std::string_view json_text, const std::string& source);
  void ParsePreTokenizer(const nlohmann::json& pre, const std::string& source);
  void ParseNormalizer(const nlohmann::json& normalizer, const std::string& source);
  void ParseDecoder(const nlohmann::json& decoder);
  void ParsePostProcessor(const nlohmann::json& post, const std::string& source);
  void SetToken(const std::string& token, int id, const std::string& source);
  void SortAddedTokens();
  void MapByteTokens(const std::string& source);  // byte_ids_ (and the byte-level symbol tables)
  void AddMerge(const std::string& left, const std::string& right, int rank, const std::string& source);
  void MergesFromScores(const std::vector<double>& scores);  // SentencePiece BPE (FromGguf)
  void EncodeText(std::string_view text, bool first, std::vector<int>& out) const;
  void EncodeWord(std::string_view word, std::vector<int>& out) const;

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> tokens_;  // id -> token ("" where no token has the id)
  std::vector<bool> special_;
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;  // (left << 32 | right) -> (rank, merged id)
  std::vector<std::pair<std::string, int>> added_;             // longest first
  bool byte_level_ = false;
  Split split_ = Split::kNone;
  // SentencePiece style: spaces become |space_|; |prepend_| goes before the first (or every) text piece.
  std::string space_, prepend_;
  bool prepend_every_piece_ = false;
  bool strip_leading_space_ = false;  // the decoder drops the first decoded space
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;  // LLaMA 3: a word that is a token is taken whole, unmerged
  int unk_ = -1;
  std::vector<int> byte_ids_;  // byte -> its byte-level symbol's id, or its <0xXX> token's id
  std::vector<std::string> byte_symbol_;  // byte-level: byte -> symbol (UTF-8)
  std::unordered_map<std::string, unsigned char> symbol_byte_;
  std::vector<int> prefix_, suffix_;  // post-processor
};

}  // namespace tg::apps

#endif  // TG_APPS_LLM_TOKENIZER_H_
