// GPT-2's byte-level BPE tokenizer: vocab.json + merges.txt in, token ids out and back. Strict parsing:
// any malformed file is a tg::Error naming the file, line and fault. Text in for apps/gpt2.cc (README.md).
#ifndef TG_APPS_BPE_TOKENIZER_H_
#define TG_APPS_BPE_TOKENIZER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tg::apps {

// GPT-2's printable stand-ins for the 256 bytes (encoder.py's bytes_to_unicode), each as UTF-8: printable
// Latin-1 bytes stand for themselves, the rest map to 256+n, so every token string is printable and
// whitespace-free. Byte-level BPE vocabularies (GPT-2's, and tokenizer.json's ByteLevel) are spelled in them.
std::vector<std::string> ByteSymbols();

class BpeTokenizer {
 public:
  // Reads the files (tg::Error on any fault; see Parse). A file larger than |max_file_bytes| is a
  // tg::Error naming it and its size, before any of it is read.
  static constexpr size_t kMaxFileBytes = size_t{64} << 20;
  static BpeTokenizer Load(const std::string& vocab_json_path, const std::string& merges_txt_path,
                           size_t max_file_bytes = kMaxFileBytes);
  // InvalidArgument unless |vocab_json| is one JSON object of token -> distinct non-negative int, holding
  // all 256 byte symbols; and every line of |merges_txt| (after an optional "#version" line; blank lines
  // are skipped) is exactly "left right" where left, right and left+right are all in the vocabulary.
  static absl::StatusOr<BpeTokenizer> Parse(std::string_view vocab_json, std::string_view merges_txt);

  // UTF-8 (or any bytes) -> ids, splitting with GPT-2's pattern first (see bpe_tokenizer.cc).
  std::vector<int> Encode(std::string_view text) const;
  // ids -> bytes; tg::Error on an id outside the vocabulary.
  std::string Decode(const std::vector<int>& ids) const;
  size_t vocab_size() const { return id_to_token_.size(); }

  // The pre-tokenizer alone: GPT-2's regex, 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
  // \s+(?!\S)|\s+, by hand. Letters are ASCII letters and every non-ASCII code point; numbers ASCII digits.
  static std::vector<std::string_view> PreTokenize(std::string_view text);

 private:
  std::vector<int> EncodeWord(std::string_view word) const;

  std::unordered_map<std::string, int> token_to_id_;
  std::vector<std::string> id_to_token_;            // "" for ids the vocabulary skips
  std::map<std::pair<std::string, std::string>, int> merge_rank_;
  std::vector<std::string> byte_symbol_;           // byte -> its printable symbol (UTF-8)
  std::unordered_map<std::string, unsigned char> symbol_byte_;
};

}  // namespace tg::apps

#endif  // TG_APPS_BPE_TOKENIZER_H_
