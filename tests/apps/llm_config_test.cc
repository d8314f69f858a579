// apps/llm_config and apps/llm_rope: config.json's layouts and defaults, rope scaling, and every refusal of
// a bad config, each a tg::Error saying what is wrong.
#include "apps/llm_config.h"

#include "apps/llm_rope.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

nlohmann::json Minimal() {
  return {{"model_type", "llama"},     {"vocab_size", 10},        {"hidden_size", 16}, {"intermediate_size", 32},
          {"num_hidden_layers", 1},    {"num_attention_heads", 4}};
}

LlmConfig Parse(const nlohmann::json& j) { return ParseLlmConfig(j.dump(), "config.json"); }

void ExpectRefused(const nlohmann::json& j, const std::string& message) {
  EXPECT_THAT([&] { Parse(j); }, ThrowsMessage<Error>(HasSubstr(message))) << j.dump();
}

TEST(LlmConfig, DefaultsFollowHuggingFace) {
  LlmConfig c = Parse(Minimal());
  EXPECT_EQ(c.kv_heads, 4);
  EXPECT_EQ(c.head_dim, 4);
  EXPECT_EQ(c.rope_scaling.kind, RopeScaling::Kind::kNone);
  EXPECT_FALSE(c.tie_word_embeddings);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_EQ(c.sliding_window, 0);
}

TEST(LlmConfig, ReadsTheLayoutsOfTheTestModels) {
  LlmConfig llama = LoadLlmConfig("tests/apps/data/llm_llama/config.json");
  EXPECT_EQ(llama.kv_heads, 2);
  EXPECT_EQ(llama.rope_scaling.kind, RopeScaling::Kind::kLlama3);
  EXPECT_EQ(llama.eos_token_ids, std::vector<int>{2});
  LlmConfig qwen2 = LoadLlmConfig("tests/apps/data/llm_qwen2/config.json");
  EXPECT_TRUE(qwen2.qkv_bias);
  EXPECT_TRUE(qwen2.tie_word_embeddings);
  EXPECT_EQ(qwen2.sliding_window, 0);  // use_sliding_window is false; only mistral's window is used
  nlohmann::json mistral = Minimal();
  mistral["model_type"] = "mistral";
  mistral["sliding_window"] = 4096;
  mistral["eos_token_id"] = {2, 7};
  EXPECT_EQ(Parse(mistral).sliding_window, 4096);
  EXPECT_EQ(Parse(mistral).eos_token_ids, (std::vector<int>{2, 7}));
}

TEST(LlmConfig, BadConfigsAreRefusedSayingWhatIsAllowed) {
  EXPECT_THAT([] { ParseLlmConfig("{nope", "x.json"); }, ThrowsMessage<Error>(HasSubstr("x.json: not a JSON object")));
  nlohmann::json j = Minimal();
  j.erase("hidden_size");
  ExpectRefused(j, "missing \"hidden_size\" (a positive integer)");
  j = Minimal(), j["num_hidden_layers"] = 0;
  ExpectRefused(j, "\"num_hidden_layers\" is 0, expected a positive integer");
  j = Minimal(), j["model_type"] = "gpt_neox";
  ExpectRefused(j, "model_type \"gpt_neox\" is not supported (allowed: llama, mistral, qwen2)");
  j = Minimal(), j["hidden_act"] = "gelu";
  ExpectRefused(j, "hidden_act \"gelu\" is not supported");
  j = Minimal(), j["num_key_value_heads"] = 3;
  ExpectRefused(j, "4 attention heads are not a multiple of 3 key/value heads");
  j = Minimal(), j["num_attention_heads"] = 5;
  ExpectRefused(j, "hidden_size 16 is not divisible by 5 heads");
  j = Minimal(), j["head_dim"] = 3;
  ExpectRefused(j, "head_dim 3 is odd");
  j = Minimal(), j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  ExpectRefused(j, "rope_scaling type \"yarn\" is not supported (allowed: default, linear, llama3)");
  j = Minimal(), j["rope_scaling"] = {{"type", "linear"}, {"factor", -1}};
  ExpectRefused(j, "\"factor\" is -1, expected a positive number");
  j = Minimal(), j["tie_word_embeddings"] = "yes";
  ExpectRefused(j, "\"tie_word_embeddings\" is \"yes\", expected true or false");
  j = Minimal(), j["rope_scaling"] = {{"rope_type", 3}};
  ExpectRefused(j, "rope_scaling's \"rope_type\" is 3, expected a name");
  EXPECT_THAT([] { LoadLlmConfig("/nonexistent/config.json"); }, ThrowsMessage<Error>(HasSubstr("cannot be read")));
}

TEST(LlmRope, ScalingStretchesOnlyTheFrequenciesItShould) {
  nlohmann::json j = Minimal();
  j["hidden_size"] = 32, j["num_attention_heads"] = 4;  // head_dim 8: frequencies 1, 0.1, 0.01, 0.001
  std::vector<double> plain = RopeInverseFrequencies(Parse(j));
  ASSERT_EQ(plain.size(), 4u);
  EXPECT_NEAR(plain[1], 0.1, 1e-6);
  j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  EXPECT_NEAR(RopeInverseFrequencies(Parse(j))[1], 0.05, 1e-6);
  j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                       {"original_max_position_embeddings", 64}};
  std::vector<double> l3 = RopeInverseFrequencies(Parse(j));
  EXPECT_DOUBLE_EQ(l3[0], plain[0]);             // wavelength 6.3 < 16: kept
  EXPECT_LT(l3[1], plain[1]);                    // 62.8, between 16 and 64: blended
  EXPECT_GT(l3[1], plain[1] / 8);
  EXPECT_DOUBLE_EQ(l3[3], plain[3] / 8);         // 6283 > 64: slowed by the factor
}

}  // namespace
}  // namespace tg::apps
