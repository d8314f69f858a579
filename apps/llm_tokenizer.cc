// apps/llm_tokenizer.h. Merging follows HF tokenizers' BPE: the adjacent pair of lowest merge rank is
// merged first (leftmost on ties) until no pair has a rank.
#include "apps/llm_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>

#include "apps/bpe_tokenizer.h"
#include "apps/llm_pretokenizer.h"
#include "ir/error.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using nlohmann::json;

const char* const kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word marker

size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char b = static_cast<unsigned char>(s[i]);
  size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  if (i + len > s.size()) return 1;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return len;
}

std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, from.size(), from) == 0) {
      out += to;
      i += from.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::vector<json> Steps(const json& j, const char* list_key) {
  if (j.is_null()) return {};
  if (j.value("type", "") == "Sequence" && j.contains(list_key)) return j[list_key].get<std::vector<json>>();
  return {j};
}

uint64_t PairKey(int left, int right) { return static_cast<uint64_t>(left) << 32 | static_cast<uint32_t>(right); }

}  // namespace

LlmTokenizer LlmTokenizer::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot be read (a model folder needs tokenizer.json)");
  std::ostringstream s;
  s << in.rdbuf();
  return Parse(s.str(), path);
}

void LlmTokenizer::ParsePreTokenizer(const json& pre, const std::string& source) {
  for (const json& step : Steps(pre, "pretokenizers")) {
    std::string type = step.value("type", "");
    if (type == "ByteLevel") {
      byte_level_ = true;
      if (split_ == Split::kNone && step.value("use_regex", true)) split_ = Split::kGpt2;
    } else if (type == "Split" && step.contains("pattern") && step["pattern"].contains("Regex")) {
      std::string regex = step["pattern"]["Regex"].get<std::string>();
      if (regex.find("\\p{L}") == std::string::npos || regex.find("\\s*[\\r\\n]+") == std::string::npos)
        throw Error(source + ": the pre-tokenizer's Split regex is not LLaMA 3's or Qwen2's, the ones implemented");
      split_ = regex.find("\\p{N}{1,3}") != std::string::npos ? Split::kLlama3 : Split::kQwen2;
    } else if (type == "Metaspace") {
      space_ = step.value("replacement", std::string(kSpaceMark));
      std::string scheme = step.value("prepend_scheme", step.value("add_prefix_space", true) ? "always" : "never");
      if (scheme != "never") prepend_ = space_, prepend_every_piece_ = scheme == "always";
      if (step.value("split", true)) split_ = Split::kMetaspace;
    } else {
      throw Error(source + ": pre-tokenizer \"" + type +
                  "\" is not supported (allowed: ByteLevel, Split with LLaMA 3's or Qwen2's regex, Metaspace)");
    }
  }
}

void LlmTokenizer::ParseNormalizer(const json& normalizer, const std::string& source) {
  for (const json& step : Steps(normalizer, "normalizers")) {
    std::string type = step.value("type", "");
    if (type == "Prepend") {
      prepend_ = step.value("prepend", std::string(kSpaceMark));
      prepend_every_piece_ = true;
    } else if (type == "Replace" && step.contains("pattern") && step["pattern"].value("String", "") == " ") {
      space_ = step.value("content", std::string(kSpaceMark));
    } else if (type != "NFC" && type != "NFKC") {  // composed forms: text typed on a keyboard already is
      throw Error(source + ": normalizer \"" + type +
                  "\" is not supported (allowed: Prepend, Replace of \" \", NFC, NFKC)");
    }
  }
}

void LlmTokenizer::ParseDecoder(const json& decoder) {
  for (const json& step : Steps(decoder, "decoders")) {
    std::string type = step.value("type", "");
    if (type == "Strip" && step.value("start", 0) > 0) strip_leading_space_ = true;
    if (type == "Metaspace" && step.value("prepend_scheme", "always") != "never" && step.value("add_prefix_space", true))
      strip_leading_space_ = true;
  }
}

void LlmTokenizer::ParsePostProcessor(const json& post, const std::string& source) {
  for (const json& step : Steps(post, "processors")) {
    if (step.value("type", "") != "TemplateProcessing" || !step.contains("single")) continue;
    bool after = false;
    for (const json& part : step["single"]) {
      if (part.contains("Sequence")) {
        after = true;
        continue;
      }
      if (!part.contains("SpecialToken")) continue;
      std::string name = part["SpecialToken"].value("id", "");
      std::vector<int> ids;
      if (step.contains("special_tokens") && step["special_tokens"].contains(name))
        ids = step["special_tokens"][name].value("ids", std::vector<int>{});
      else if (std::optional<int> id = Find(name))
        ids = {*id};
      if (ids.empty()) throw Error(source + ": the post-processor adds \"" + name + "\", which is not a token");
      (after ? suffix_ : prefix_).insert((after ? suffix_ : prefix_).end(), ids.begin(), ids.end());
    }
  }
}

void LlmTokenizer::SetToken(const std::string& token, int id, const std::string& source) {
  if (static_cast<size_t>(id) >= tokens_.size()) tokens_.resize(id + 1), special_.resize(id + 1);
  if (!tokens_[id].empty() && tokens_[id] != token)
    throw Error(source + ": id " + std::to_string(id) + " is both \"" + tokens_[id] + "\" and \"" + token + "\"");
  auto [it, fresh] = vocab_.emplace(token, id);
  if (!fresh && it->second != id)
    throw Error(source + ": token \"" + token + "\" has id " + std::to_string(id) + " but the vocabulary gives it " +
                std::to_string(it->second));
  tokens_[id] = token;
}

void LlmTokenizer::SortAddedTokens() {
  std::stable_sort(added_.begin(), added_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

void LlmTokenizer::MapByteTokens(const std::string& source) {
  byte_ids_.assign(256, -1);
  if (byte_level_) {
    byte_symbol_ = ByteSymbols();
    for (int b = 0; b < 256; ++b) {
      std::optional<int> id = Find(byte_symbol_[b]);
      if (!id) throw Error(source + ": the byte-level vocabulary lacks the symbol of byte " + std::to_string(b));
      byte_ids_[b] = *id;
      symbol_byte_[byte_symbol_[b]] = static_cast<unsigned char>(b);
    }
  } else if (byte_fallback_) {
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof(name), "<0x%02X>", b);
      std::optional<int> id = Find(name);
      if (!id) throw Error(source + ": byte_fallback is on but the vocabulary lacks " + std::string(name));
      byte_ids_[b] = *id;
    }
  }
}

void LlmTokenizer::AddMerge(const std::string& left, const std::string& right, int rank, const std::string& source) {
  std::optional<int> l = Find(left), r = Find(right), merged = Find(left + right);
  if (!l || !r || !merged)
    throw Error(source + ": merge " + std::to_string(rank) + " (\"" + left + "\", \"" + right +
                "\") uses or makes a token outside the vocabulary");
  merges_.emplace(PairKey(*l, *r), std::make_pair(rank, *merged));
}

// Hugging Face's SentencePieceExtractor (convert_slow_tokenizer.py): every split of a token into two
// tokens, at code point boundaries, is a merge; merges rank by the made token's score, highest first,
// then by its id, then by the ids of the two halves.
void LlmTokenizer::MergesFromScores(const std::vector<double>& scores) {
  struct Candidate {
    double score;
    int merged, left, right;
  };
  std::vector<Candidate> candidates;
  for (int id = 0; id < size(); ++id) {
    const std::string& token = tokens_[id];
    if (token.empty()) continue;
    for (size_t cut = Utf8Length(token, 0); cut < token.size(); cut += Utf8Length(token, cut)) {
      std::optional<int> left = Find(std::string_view(token).substr(0, cut)), right = Find(std::string_view(token).substr(cut));
      if (left && right) candidates.push_back({scores[id], id, *left, *right});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return std::tie(a.merged, a.left, a.right) < std::tie(b.merged, b.left, b.right);
  });
  for (size_t rank = 0; rank < candidates.size(); ++rank) {
    const Candidate& c = candidates[rank];
    merges_.emplace(PairKey(c.left, c.right), std::make_pair(static_cast<int>(rank), c.merged));
  }
}

LlmTokenizer LlmTokenizer::Parse(std::string_view json_text, const std::string& source) {
  try {
    return ParseJson(json_text, source);
  } catch (const json::exception& e) {  // a value of the wrong JSON type somewhere the checks above do not look
    throw Error(source + ": unexpected JSON layout (" + e.what() + ")");
  }
}

LlmTokenizer LlmTokenizer::ParseJson(std::string_view json_text, const std::string& source) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("model") || !j["model"].is_object())
    throw Error(source + ": not a Hugging Face tokenizer.json (a JSON object with \"model\")");
  const json& model = j["model"];
  if (model.value("type", "BPE") != "BPE")
    throw Error(source + ": model type \"" + model.value("type", "") + "\" is not supported (allowed: BPE)");
  if (!model.contains("vocab") || !model["vocab"].is_object())
    throw Error(source + ": model.vocab is not an object of token -> id");
  LlmTokenizer t;
  // Ids index a table, so a few bytes declaring one huge id would reserve gigabytes: an id must be
  // below twice the number of entries plus 256 (room for the gaps real vocabularies leave).
  const json added_tokens = j.value("added_tokens", json::array());
  const size_t entries = model["vocab"].size() + (added_tokens.is_array() ? added_tokens.size() : 0);
  const int64_t id_bound = 2 * static_cast<int64_t>(entries) + 256;
  auto add = [&](const std::string& token, const json& id_json) {
    if (!id_json.is_number_integer() || id_json.get<int64_t>() < 0)
      throw Error(source + ": token \"" + token + "\" has id " + id_json.dump() + ", expected a non-negative integer");
    if (id_json.get<int64_t>() >= id_bound)
      throw Error(source + ": token \"" + token + "\" has id " + id_json.dump() + ", expected below " +
                  std::to_string(id_bound) + " (twice the " + std::to_string(entries) + " entries plus 256)");
    int id = id_json.get<int>();
    t.SetToken(token, id, source);
    return id;
  };
  for (const auto& [token, id] : model["vocab"].items()) add(token, id);
  for (const json& a : added_tokens) {
    if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id"))
      throw Error(source + ": added token " + a.dump() + " lacks \"id\" or \"content\"");
    std::string content = a["content"].get<std::string>();
    int id = add(content, a["id"]);
    t.special_[id] = a.value("special", false);
    if (!content.empty()) t.added_.emplace_back(content, id);
  }
  t.SortAddedTokens();

  t.ParseNormalizer(j.value("normalizer", json()), source);
  t.ParsePreTokenizer(j.value("pre_tokenizer", json()), source);
  t.ParseDecoder(j.value("decoder", json()));
  t.byte_fallback_ = model.value("byte_fallback", false);
  t.ignore_merges_ = model.value("ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string())
    if (std::optional<int> unk = t.Find(model["unk_token"].get<std::string>())) t.unk_ = *unk;
  if (!t.byte_level_ && t.space_.empty() && !t.byte_fallback_)
    throw Error(source + ": neither byte-level (a ByteLevel pre-tokenizer) nor SentencePiece-style (Metaspace, or a "
                "Replace of \" \" with byte_fallback); no other BPE layout is supported");

  t.MapByteTokens(source);

  const json merges = model.value("merges", json::array());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const json& m = merges[rank];
    std::string left, right;
    if (m.is_string()) {
      std::string s = m.get<std::string>();
      size_t space = s.find(' ');
      if (space == std::string::npos) throw Error(source + ": merge " + std::to_string(rank) + " \"" + s + "\" is not \"left right\"");
      left = s.substr(0, space), right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      left = m[0].get<std::string>(), right = m[1].get<std::string>();
    } else {
      throw Error(source + ": merge " + std::to_string(rank) + " is " + m.dump() + ", expected \"left right\" or [left, right]");
    }
    t.AddMerge(left, right, static_cast<int>(rank), source);
  }
  t.ParsePostProcessor(j.value("post_processor", json()), source);
  return t;
}

std::optional<int> LlmTokenizer::Find(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

bool LlmTokenizer::IsSpecial(int id) const { return id >= 0 && id < size() && special_[id]; }

void LlmTokenizer::EncodeWord(std::string_view word, std::vector<int>& out) const {
  std::vector<int> symbols;
  if (ignore_merges_) {
    std::string whole;
    for (unsigned char b : word) whole += byte_level_ ? byte_symbol_[b] : std::string(1, static_cast<char>(b));
    if (std::optional<int> id = Find(whole)) return out.push_back(*id);
  }
  if (byte_level_) {
    for (unsigned char b : word) symbols.push_back(byte_ids_[b]);
  } else {
    for (size_t i = 0; i < word.size();) {
      size_t len = Utf8Length(word, i);
      if (std::optional<int> id = Find(word.substr(i, len))) {
        symbols.push_back(*id);
      } else if (byte_fallback_) {
        for (size_t k = 0; k < len; ++k) symbols.push_back(byte_ids_[static_cast<unsigned char>(word[i + k])]);
      } else if (unk_ >= 0) {
        symbols.push_back(unk_);
      } else {
        throw Error("llm tokenizer: \"" + std::string(word.substr(i, len)) + "\" has no token, no byte fallback and no unk");
      }
      i += len;
    }
  }
  while (symbols.size() > 1) {
    size_t best = 0;
    int best_rank = std::numeric_limits<int>::max(), merged = -1;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      auto it = merges_.find(PairKey(symbols[i], symbols[i + 1]));
      if (it != merges_.end() && it->second.first < best_rank) best = i, best_rank = it->second.first, merged = it->second.second;
    }
    if (merged < 0) break;
    symbols[best] = merged;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  out.insert(out.end(), symbols.begin(), symbols.end());
}

void LlmTokenizer::EncodeText(std::string_view text, bool first, std::vector<int>& out) const {
  if (byte_level_) {
    if (split_ == Split::kNone) return EncodeWord(text, out);
    std::vector<std::string_view> words = split_ == Split::kGpt2 ? BpeTokenizer::PreTokenize(text)
                                                                 : SplitLikeLlama3(text, split_ == Split::kLlama3 ? 3 : 1);
    for (std::string_view w : words) EncodeWord(w, out);
    return;
  }
  std::string normalized = (first || prepend_every_piece_ ? prepend_ : std::string()) + ReplaceAll(text, " ", space_);
  if (split_ != Split::kMetaspace) return EncodeWord(normalized, out);
  // Metaspace's split: a word starts at each marker
  size_t start = 0;
  for (size_t i = space_.size(); i <= normalized.size(); ++i) {
    if (i == normalized.size() || normalized.compare(i, space_.size(), space_) == 0) {
      if (i > start) EncodeWord(std::string_view(normalized).substr(start, i - start), out);
      start = i;
    }
  }
}

std::vector<int> LlmTokenizer::Encode(std::string_view text, bool add_special) const {
  std::vector<int> ids = add_special ? prefix_ : std::vector<int>{};
  size_t start = 0;
  bool first = true;
  for (size_t i = 0; i < text.size();) {
    auto hit = std::find_if(added_.begin(), added_.end(), [&](const auto& a) { return text.compare(i, a.first.size(), a.first) == 0; });
    if (hit == added_.end()) {
      ++i;
      continue;
    }
    if (i > start) EncodeText(text.substr(start, i - start), first, ids), first = false;
    ids.push_back(hit->second);
    i += hit->first.size();
    start = i;
  }
  if (start < text.size()) EncodeText(text.substr(start), first, ids);
  if (add_special) ids.insert(ids.end(), suffix_.begin(), suffix_.end());
  return ids;
}

std::string LlmTokenizer::Decode(const std::vector<int>& ids, bool skip_special) const {
  std::string out;
  for (int id : ids) {
    if (id < 0 || id >= size() || tokens_[id].empty())
      throw Error("llm tokenizer: id " + std::to_string(id) + " is not a token (the vocabulary has " +
                  std::to_string(size()) + " ids)");
    if (special_[id] && skip_special) continue;
    const std::string& token = tokens_[id];
    if (byte_level_) {
      bool all_symbols = true;
      std::string bytes;
      for (size_t i = 0; i < token.size() && all_symbols;) {
        size_t len = Utf8Length(token, i);
        auto it = symbol_byte_.find(token.substr(i, len));
        if (it == symbol_byte_.end()) all_symbols = false;
        else bytes += static_cast<char>(it->second);
        i += len;
      }
      out += all_symbols ? bytes : token;  // added tokens are plain text
    } else if (byte_fallback_ && token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>') {
      out += static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16));
    } else {
      out += space_.empty() ? token : ReplaceAll(token, space_, " ");
    }
  }
  if (strip_leading_space_ && !out.empty() && out[0] == ' ') out.erase(0, 1);
  return out;
}

}  // namespace tg::apps
