// The architecture of a LLaMA-family model, read from a Hugging Face config.json: the llama, mistral and
// qwen2 layouts (apps/llm_model.h builds the decoder from it; README.md's Apps section).
#ifndef TG_APPS_LLM_CONFIG_H_
#define TG_APPS_LLM_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tg::apps {

// How rotary frequencies are stretched for contexts past the training length (HF's rope_scaling).
struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3 };
  Kind kind = Kind::kNone;
  double factor = 1.0;                      // linear and llama3
  double low_freq_factor = 1.0;             // llama3
  double high_freq_factor = 4.0;            // llama3
  int64_t original_max_positions = 8192;    // llama3
  // Per frequency, what its inverse frequency is divided by after the above: GGUF's rope_freqs.weight,
  // llama.cpp's form of llama3 scaling. Empty = none.
  std::vector<double> frequency_divisors;
};

struct LlmConfig {
  std::string model_type;  // "llama", "mistral" or "qwen2"
  int64_t vocab_size = 0, hidden_size = 0, intermediate_size = 0, layers = 0, heads = 0, kv_heads = 0;
  int64_t head_dim = 0;       // config's head_dim, else hidden_size / heads
  int64_t max_positions = 0;  // max_position_embeddings
  double rms_norm_eps = 1e-6, rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool tie_word_embeddings = false;
  bool qkv_bias = false;       // qwen2, or attention_bias: true
  int64_t sliding_window = 0;  // mistral's; 0 = every earlier position is visible
  int bos_token_id = -1;
  std::vector<int> eos_token_ids;
};

// The config in |json_text| (named |source| in errors). tg::Error, saying which key is wrong and what is
// allowed, for invalid JSON, a missing or non-positive size, heads that do not divide, an unknown
// model_type, hidden_act other than silu, or a rope_scaling type other than none/linear/llama3.
LlmConfig ParseLlmConfig(std::string_view json_text, const std::string& source);
// Reads and parses |path|; tg::Error when it cannot be read.
LlmConfig LoadLlmConfig(const std::string& path);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_CONFIG_H_
