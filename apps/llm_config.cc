// apps/llm_config.h: config.json -> LlmConfig, with HF's defaults where a key is optional.
#include "apps/llm_config.h"

#include <fstream>
#include <sstream>

#include "ir/error.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using nlohmann::json;

struct Reader {
  const json& j;
  const std::string& source;

  [[noreturn]] void Fail(const std::string& what) const { throw Error(source + ": " + what); }

  int64_t Size(const char* key) const {
    if (!j.contains(key)) Fail(std::string("missing \"") + key + "\" (a positive integer)");
    const json& v = j[key];
    if (!v.is_number_integer() || v.get<int64_t>() <= 0)
      Fail(std::string("\"") + key + "\" is " + v.dump() + ", expected a positive integer");
    return v.get<int64_t>();
  }
  int64_t OptionalSize(const char* key, int64_t fallback) const {
    return j.contains(key) && !j[key].is_null() ? Size(key) : fallback;
  }
  double Number(const json& from, const char* key, double fallback) const {
    if (!from.contains(key) || from[key].is_null()) return fallback;
    if (!from[key].is_number() || from[key].get<double>() <= 0)
      Fail(std::string("\"") + key + "\" is " + from[key].dump() + ", expected a positive number");
    return from[key].get<double>();
  }
  bool Flag(const char* key, bool fallback) const {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (!j[key].is_boolean()) Fail(std::string("\"") + key + "\" is " + j[key].dump() + ", expected true or false");
    return j[key].get<bool>();
  }
};

RopeScaling ParseRopeScaling(const Reader& r) {
  RopeScaling s;
  if (!r.j.contains("rope_scaling") || r.j["rope_scaling"].is_null()) return s;
  const json& rs = r.j["rope_scaling"];
  if (!rs.is_object()) r.Fail("\"rope_scaling\" is " + rs.dump() + ", expected an object or null");
  const char* key = rs.contains("rope_type") ? "rope_type" : "type";
  if (rs.contains(key) && !rs[key].is_string())
    r.Fail(std::string("rope_scaling's \"") + key + "\" is " + rs[key].dump() + ", expected a name (default, linear, llama3)");
  std::string type = rs.value(key, std::string("default"));
  if (type == "default") return s;
  s.factor = r.Number(rs, "factor", 1.0);
  if (type == "linear") {
    s.kind = RopeScaling::Kind::kLinear;
  } else if (type == "llama3") {
    s.kind = RopeScaling::Kind::kLlama3;
    s.low_freq_factor = r.Number(rs, "low_freq_factor", 1.0);
    s.high_freq_factor = r.Number(rs, "high_freq_factor", 4.0);
    s.original_max_positions = static_cast<int64_t>(r.Number(rs, "original_max_position_embeddings", 8192));
    if (s.high_freq_factor <= s.low_freq_factor)
      r.Fail("rope_scaling: high_freq_factor must exceed low_freq_factor");
  } else {
    r.Fail("rope_scaling type \"" + type + "\" is not supported (allowed: default, linear, llama3)");
  }
  return s;
}

std::vector<int> TokenIds(const Reader& r, const char* key) {
  std::vector<int> ids;
  if (!r.j.contains(key) || r.j[key].is_null()) return ids;
  const json& v = r.j[key];
  for (const json& id : v.is_array() ? v : json::array({v})) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0)
      r.Fail(std::string("\"") + key + "\" is " + v.dump() + ", expected a token id or a list of them");
    ids.push_back(id.get<int>());
  }
  return ids;
}

LlmConfig ParseConfigJson(std::string_view json_text, const std::string& source) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw Error(source + ": not a JSON object (expected a Hugging Face config.json)");
  Reader r{j, source};
  LlmConfig c;
  c.model_type = j.value("model_type", std::string());
  if (c.model_type != "llama" && c.model_type != "mistral" && c.model_type != "qwen2")
    r.Fail("model_type \"" + c.model_type + "\" is not supported (allowed: llama, mistral, qwen2)");
  std::string act = j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "silu";
  if (act != "silu") r.Fail("hidden_act \"" + act + "\" is not supported (allowed: silu)");
  c.vocab_size = r.Size("vocab_size");
  c.hidden_size = r.Size("hidden_size");
  c.intermediate_size = r.Size("intermediate_size");
  c.layers = r.Size("num_hidden_layers");
  c.heads = r.Size("num_attention_heads");
  c.kv_heads = r.OptionalSize("num_key_value_heads", c.heads);
  if (c.heads % c.kv_heads != 0)
    r.Fail(std::to_string(c.heads) + " attention heads are not a multiple of " + std::to_string(c.kv_heads) +
           " key/value heads");
  if (!j.contains("head_dim") && c.hidden_size % c.heads != 0)
    r.Fail("hidden_size " + std::to_string(c.hidden_size) + " is not divisible by " + std::to_string(c.heads) +
           " heads (and there is no head_dim)");
  c.head_dim = r.OptionalSize("head_dim", c.hidden_size / c.heads);
  if (c.head_dim % 2 != 0) r.Fail("head_dim " + std::to_string(c.head_dim) + " is odd; rotary embeddings need it even");
  c.max_positions = r.OptionalSize("max_position_embeddings", 2048);
  c.rms_norm_eps = r.Number(j, "rms_norm_eps", 1e-6);
  c.rope_theta = r.Number(j, "rope_theta", 10000.0);
  c.rope_scaling = ParseRopeScaling(r);
  c.tie_word_embeddings = r.Flag("tie_word_embeddings", false);
  c.qkv_bias = c.model_type == "qwen2" || r.Flag("attention_bias", false);
  if (c.model_type == "mistral") c.sliding_window = r.OptionalSize("sliding_window", 0);
  std::vector<int> bos = TokenIds(r, "bos_token_id");
  if (!bos.empty()) c.bos_token_id = bos[0];
  c.eos_token_ids = TokenIds(r, "eos_token_id");
  return c;
}

}  // namespace

LlmConfig ParseLlmConfig(std::string_view json_text, const std::string& source) {
  try {
    return ParseConfigJson(json_text, source);
  } catch (const json::exception& e) {  // a value of the wrong JSON type where the checks do not look
    throw Error(source + ": unexpected JSON layout (" + e.what() + ")");
  }
}

LlmConfig LoadLlmConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot be read (a model folder needs config.json)");
  std::ostringstream s;
  s << in.rdbuf();
  return ParseLlmConfig(s.str(), path);
}

}  // namespace tg::apps
