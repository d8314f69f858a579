// GPT-2 byte-level BPE (apps/bpe_tokenizer.h), after openai/gpt-2's encoder.py: bytes map to printable
// symbols, the text is split by GPT-2's pattern, and each piece's symbols merge by rank.
#include "apps/bpe_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include "absl/status/status.h"
#include "frontend/load_budget.h"
#include "ir/error.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

std::string Utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6)), s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12)), s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// The code point at |text|[i] and its length in bytes; an invalid byte counts as one code point >= 0x80.
std::pair<uint32_t, size_t> CodePoint(std::string_view text, size_t i) {
  auto c = static_cast<unsigned char>(text[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + len > text.size()) len = 1;
  return {len == 1 ? c : 0x80u, len};  // only the class matters: ASCII, or "a letter"
}

enum class Class { kSpace, kLetter, kNumber, kOther };
Class ClassAt(std::string_view text, size_t i) {
  uint32_t cp = CodePoint(text, i).first;
  if (cp >= 0x80) return Class::kLetter;
  char c = static_cast<char>(cp);
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return Class::kSpace;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return Class::kLetter;
  if (c >= '0' && c <= '9') return Class::kNumber;
  return Class::kOther;
}

// The end of the run of class |cls| starting at |i|.
size_t RunEnd(std::string_view text, size_t i, Class cls) {
  while (i < text.size() && ClassAt(text, i) == cls) i += CodePoint(text, i).second;
  return i;
}

size_t Contraction(std::string_view rest) {
  for (std::string_view c : {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"})
    if (rest.substr(0, c.size()) == c) return c.size();
  return 0;
}

absl::Status ParseVocab(std::string_view json_text, std::unordered_map<std::string, int>& to_id,
                        std::vector<std::string>& to_token) {
  nlohmann::json j = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("vocab.json is not valid JSON");
  if (!j.is_object()) return absl::InvalidArgumentError("vocab.json must be a JSON object of token -> id");
  // Ids are dense in every real vocabulary; the bound keeps a 20-byte file from allocating a table of 2^24
  // strings (a fuzzer finding).
  const int64_t max_id = std::min<int64_t>(int64_t{1} << 24, 2 * static_cast<int64_t>(j.size()) + 256);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() >= max_id)
      return absl::InvalidArgumentError("vocab.json: id of \"" + it.key() + "\" is not an integer in [0, " +
                                        std::to_string(max_id) + ") (twice the entries plus 256)");
    int id = static_cast<int>(it.value().get<int64_t>());
    if (static_cast<size_t>(id) >= to_token.size()) to_token.resize(id + 1);
    if (!to_token[id].empty())
      return absl::InvalidArgumentError("vocab.json: id " + std::to_string(id) + " is given to both \"" +
                                        to_token[id] + "\" and \"" + it.key() + "\"");
    if (it.key().empty()) return absl::InvalidArgumentError("vocab.json: empty token string");
    to_token[id] = it.key();
    to_id[it.key()] = id;
  }
  return absl::OkStatus();
}

absl::Status ParseMerges(std::string_view text, const std::unordered_map<std::string, int>& vocab,
                         std::map<std::pair<std::string, std::string>, int>& ranks) {
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (number == 1 && line.rfind("#version", 0) == 0)) continue;
    size_t space = line.find(' ');
    std::string where = "merges.txt line " + std::to_string(number) + ": ";
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos)
      return absl::InvalidArgumentError(where + "expected \"left right\", got \"" + line + "\"");
    std::string left = line.substr(0, space), right = line.substr(space + 1);
    for (const std::string& t : {left, right, left + right})
      if (!vocab.count(t)) return absl::InvalidArgumentError(where + "\"" + t + "\" is not in vocab.json");
    ranks.emplace(std::pair{left, right}, static_cast<int>(ranks.size()));  // a repeated pair keeps its first rank
  }
  return absl::OkStatus();
}

// The whole file, once its size is known to be within |max_bytes|: a file named by mistake (a checkpoint
// given as the vocabulary) is refused before it is read into memory.
std::string ReadFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error("gpt2 tokenizer: cannot read " + path);
  std::streamoff size = in.tellg();
  if (size < 0) throw Error("gpt2 tokenizer: cannot tell the size of " + path);
  if (static_cast<uint64_t>(size) > max_bytes)
    throw Error("gpt2 tokenizer: " + path + " is " + std::to_string(size) + " bytes, more than the " +
                std::to_string(max_bytes) + "-byte limit of a tokenizer file (GPT-2's vocab.json is about 1 MB)");
  CheckLoadBudget("gpt2 tokenizer: " + path, "the file", static_cast<uint64_t>(size));
  std::string out(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (size > 0 && !in.read(out.data(), size)) throw Error("gpt2 tokenizer: reading " + path + " failed");
  return out;
}

}  // namespace

std::vector<std::string> ByteSymbols() {
  std::vector<std::string> out(256);
  int extra = 0;
  for (int b = 0; b < 256; ++b) {
    bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    out[b] = Utf8(printable ? b : 256 + extra++);
  }
  return out;
}

absl::StatusOr<BpeTokenizer> BpeTokenizer::Parse(std::string_view vocab_json, std::string_view merges_txt) {
  BpeTokenizer t;
  if (absl::Status s = ParseVocab(vocab_json, t.token_to_id_, t.id_to_token_); !s.ok()) return s;
  if (absl::Status s = ParseMerges(merges_txt, t.token_to_id_, t.merge_rank_); !s.ok()) return s;
  t.byte_symbol_ = ByteSymbols();
  for (int b = 0; b < 256; ++b) {
    if (!t.token_to_id_.count(t.byte_symbol_[b]))
      return absl::InvalidArgumentError("vocab.json lacks the symbol of byte " + std::to_string(b) +
                                        " (a byte-level BPE vocabulary holds all 256)");
    t.symbol_byte_[t.byte_symbol_[b]] = static_cast<unsigned char>(b);
  }
  return t;
}

BpeTokenizer BpeTokenizer::Load(const std::string& vocab_json_path, const std::string& merges_txt_path,
                                size_t max_file_bytes) {
  std::string vocab = ReadFile(vocab_json_path, max_file_bytes);  // in order: the first fault is reported
  std::string merges = ReadFile(merges_txt_path, max_file_bytes);
  absl::StatusOr<BpeTokenizer> t = Parse(vocab, merges);
  if (!t.ok())
    throw Error("gpt2 tokenizer (" + vocab_json_path + ", " + merges_txt_path + "): " +
                std::string(t.status().message()));
  return *std::move(t);
}

std::vector<std::string_view> BpeTokenizer::PreTokenize(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    Class next = i + 1 < text.size() ? ClassAt(text, i + 1) : Class::kSpace;
    Class here = ClassAt(text, i);
    if (size_t n = Contraction(text.substr(i)); n > 0) {
      end = i + n;
    } else if (here != Class::kSpace || (text[i] == ' ' && next != Class::kSpace && i + 1 < text.size())) {
      // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": an optional single space, then one run
      size_t start = text[i] == ' ' ? i + 1 : i;
      end = RunEnd(text, start, ClassAt(text, start));
    } else {
      // "\s+(?!\S)|\s+": a whitespace run, leaving its last character to the word that follows
      end = RunEnd(text, i, Class::kSpace);
      if (end < text.size() && end - i > 1) end -= CodePoint(text, end - 1).second;
    }
    out.push_back(text.substr(i, end - i));
    i = end;
  }
  return out;
}

std::vector<int> BpeTokenizer::EncodeWord(std::string_view word) const {
  std::vector<std::string> parts;
  for (unsigned char b : word) parts.push_back(byte_symbol_[b]);
  while (parts.size() > 1) {  // merge the best-ranked adjacent pair, everywhere it occurs
    int best = std::numeric_limits<int>::max();
    for (size_t k = 0; k + 1 < parts.size(); ++k)
      if (auto it = merge_rank_.find({parts[k], parts[k + 1]}); it != merge_rank_.end()) best = std::min(best, it->second);
    if (best == std::numeric_limits<int>::max()) break;
    std::vector<std::string> merged;
    for (size_t k = 0; k < parts.size(); ++k) {
      auto it = k + 1 < parts.size() ? merge_rank_.find({parts[k], parts[k + 1]}) : merge_rank_.end();
      if (it != merge_rank_.end() && it->second == best) merged.push_back(parts[k] + parts[k + 1]), ++k;
      else merged.push_back(parts[k]);
    }
    parts = std::move(merged);
  }
  std::vector<int> ids;
  for (const std::string& p : parts) ids.push_back(token_to_id_.at(p));  // Parse checked every merge result
  return ids;
}

std::vector<int> BpeTokenizer::Encode(std::string_view text) const {
  std::vector<int> ids;
  for (std::string_view word : PreTokenize(text))
    for (int id : EncodeWord(word)) ids.push_back(id);
  return ids;
}

std::string BpeTokenizer::Decode(const std::vector<int>& ids) const {
  std::string out;
  for (int id : ids) {
    if (id < 0 || static_cast<size_t>(id) >= id_to_token_.size() || id_to_token_[id].empty())
      throw Error("gpt2 tokenizer: id " + std::to_string(id) + " is not in the vocabulary");
    const std::string& token = id_to_token_[id];
    for (size_t i = 0; i < token.size();) {
      size_t len = CodePoint(token, i).second;
      auto it = symbol_byte_.find(token.substr(i, len));
      out += it != symbol_byte_.end() ? static_cast<char>(it->second) : '?';  // added tokens: not byte symbols
      i += len;
    }
  }
  return out;
}

}  // namespace tg::apps
