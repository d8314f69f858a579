// Fuzz target: GPT-2's BPE tokenizer files (apps/bpe_tokenizer.h) and the text it encodes. The input is
// "vocab.json \xFF merges.txt \xFF text". When the first byte is 'B' the vocabulary is instead the 256 byte
// symbols plus the fuzzer's extra JSON entries, so arbitrary merges and text reach Encode. Parse either
// fails with a message or gives a tokenizer for which Decode(Encode(text)) == text, byte for byte.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "apps/bpe_tokenizer.h"
#include "ir/error.h"

namespace {

std::vector<std::string_view> Split(std::string_view s, size_t n) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < n) {
    size_t at = s.find('\xFF');
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + 1);
  }
  out.push_back(s);
  out.resize(n);
  return out;
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// {"<symbol of byte 0>": 0, ..., "<symbol of byte 255>": 255, <extra>}: the symbols come from the
// tokenizer itself (PreTokenize is not needed; Decode of a one-byte-vocab tokenizer is), built once.
const std::string& ByteVocabPrefix() {
  static const std::string prefix = [] {
    std::string json = "{";
    for (int b = 0; b < 256; ++b) {
      std::string sym;
      // the byte symbol table of encoder.py: printable Latin-1 stands for itself, the rest map to 256+n
      static int extra = 0;
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      uint32_t cp = printable ? b : 256 + extra++;
      if (cp < 0x80) sym += static_cast<char>(cp);
      else sym += static_cast<char>(0xC0 | (cp >> 6)), sym += static_cast<char>(0x80 | (cp & 0x3F));
      json += "\"" + JsonEscape(sym) + "\":" + std::to_string(b) + ",";
    }
    return json;
  }();
  return prefix;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 8192) return 0;  // Encode is quadratic in a word's length by design (as encoder.py)
  std::string_view in(reinterpret_cast<const char*>(data), size);
  bool byte_vocab = !in.empty() && in[0] == 'B';
  if (byte_vocab) in.remove_prefix(1);
  std::vector<std::string_view> f = Split(in, 3);
  std::string vocab = byte_vocab ? ByteVocabPrefix() + std::string(f[0]) + "\"<|endoftext|>\":256}" : std::string(f[0]);
  absl::StatusOr<tg::apps::BpeTokenizer> t = tg::apps::BpeTokenizer::Parse(vocab, f[1]);
  if (!t.ok()) {
    if (t.status().message().empty()) std::abort();  // a rejection says why
    return 0;
  }
  std::vector<int> ids = t->Encode(f[2]);
  if (ids.size() > f[2].size()) std::abort();  // every token covers at least one byte
  std::string back;
  try {
    back = t->Decode(ids);
  } catch (const tg::Error&) {
    std::abort();  // Encode only returns ids of the vocabulary
  }
  if (back != f[2]) std::abort();
  return 0;
}
