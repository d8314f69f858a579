// apps/llm_model: the tiny random models of tests/apps/make_llm_reference.py give PyTorch's logits
// (the published architecture written with torch ops) to 1e-4 over the whole prompt, through the KV
// cache, and the same greedy continuation token for token. Run on every device (tests/device_test.bzl).
#include "apps/llm_model.h"

#include <fstream>
#include <map>
#include <sstream>

#include "apps/llm_checkpoint.h"
#include "apps/llm_config.h"
#include "frontend/devices.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;

const std::string kData = "tests/apps/data/";

const nlohmann::json& Reference() {
  static const nlohmann::json* ref = [] {
    std::ifstream in(kData + "llm_reference.json");
    std::ostringstream s;
    s << in.rdbuf();
    return new nlohmann::json(nlohmann::json::parse(s.str()));
  }();
  return *ref;
}

// The reference's model |name|: llama and qwen2 are folders; mistral is llama's weights under its own config.
LlmConfig ConfigOf(const std::string& name) {
  if (name == "mistral") return ParseLlmConfig(Reference()["mistral"]["config"].dump(), "mistral config");
  return LoadLlmConfig(kData + "llm_" + name + "/config.json");
}
nn::StateDict WeightsOf(const std::string& name) { return LoadLlmCheckpoint(kData + "llm_" + (name == "mistral" ? "llama" : name)); }

std::vector<float> Row(const std::vector<float>& all, size_t row, size_t width) {
  return {all.begin() + static_cast<std::ptrdiff_t>(row * width), all.begin() + static_cast<std::ptrdiff_t>((row + 1) * width)};
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << what << " logit " << i;
}

int Argmax(const std::vector<float>& v) { return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin()); }

class LlmModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LlmModelTest, PromptLogitsMatchPyTorch) {
  const nlohmann::json& ref = Reference()[GetParam()];
  std::vector<int32_t> ids = ref["ids"].get<std::vector<int32_t>>();
  LlmModel model(ConfigOf(GetParam()), WeightsOf(GetParam()));
  int64_t t = static_cast<int64_t>(ids.size());
  ExpectNear(model.Forward(Tensor::from_vector(ids, Shape{1, t})).to_vector<float>(), ref["logits"].get<std::vector<float>>(),
             "forward");
}

TEST_P(LlmModelTest, PrefillAndCachedStepsMatchPyTorch) {
  const nlohmann::json& ref = Reference()[GetParam()];
  std::vector<int> ids = ref["ids"].get<std::vector<int>>();
  std::vector<float> want = ref["logits"].get<std::vector<float>>();
  LlmModel model(ConfigOf(GetParam()), WeightsOf(GetParam()));
  const size_t vocab = static_cast<size_t>(model.vocab());
  ExpectNear(model.Prefill({ids[0], ids[1]}), Row(want, 1, vocab), "prefill");
  // Three steps: a plain run, the JIT capture, a replay that reads what they cached.
  for (size_t pos = 2; pos < 5; ++pos) ExpectNear(model.Step(ids[pos]), Row(want, pos, vocab), "step " + std::to_string(pos));
  EXPECT_GT(model.captured_kernels(), 0u);
}

TEST_P(LlmModelTest, GreedyContinuationMatchesPyTorch) {
  const nlohmann::json& ref = Reference()[GetParam()];
  std::vector<int> want = ref["greedy"].get<std::vector<int>>();
  LlmModel model(ConfigOf(GetParam()), WeightsOf(GetParam()));
  std::vector<float> logits = model.Prefill(ref["ids"].get<std::vector<int>>());
  std::vector<int> got;
  while (got.size() < want.size()) {
    got.push_back(Argmax(logits));
    logits = model.Step(got.back());
  }
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Layouts, LlmModelTest, ::testing::Values("llama", "qwen2", "mistral"));

// Steps at every position replay one capture (the position is a tg::Variable, the attention cut to
// pos + 1), compile nothing after the first two, and agree with the full-sequence forward (itself
// checked against PyTorch above).
TEST(LlmModel, StepsAtEveryPositionReplayOneCapture) {
  LlmModel model(ConfigOf("qwen2"), WeightsOf("qwen2"));
  std::vector<int32_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back((i * 37 + 11) % 300);
  const size_t vocab = static_cast<size_t>(model.vocab());
  std::vector<float> full = model.Forward(Tensor::from_vector(ids, Shape{1, 20})).to_vector<float>();
  ExpectNear(model.Prefill({ids.begin(), ids.begin() + 3}), Row(full, 2, vocab), "prefill");
  uint64_t made = 0;
  for (size_t pos = 3; pos < ids.size(); ++pos) {
    if (pos == 5) made = programs_made();  // the first step ran, the second captured
    ExpectNear(model.Step(ids[pos]), Row(full, pos, vocab), "step " + std::to_string(pos));
  }
  EXPECT_EQ(programs_made(), made) << "a step after the capture compiled a kernel";
}

// The F16 and BF16 checkpoints stay in their dtype on a device that computes in it: the matmul weights'
// bytes are the file's, only the norms (and qwen2's biases) are float32, and running keeps it so.
TEST(LlmModel, HalfWeightsStayHalfOnTheDevice) {
  for (const auto& [name, dtype] : {std::pair<std::string, DType>{"llama", dtypes::float16}, {"qwen2", dtypes::bfloat16}}) {
    if (!device_supports(default_device(), dtype)) continue;
    nn::StateDict weights = WeightsOf(name);
    int64_t half = 0, small = 0;
    for (const auto& [key, w] : weights) (w.ndim() == 2 ? half : small) += w.numel() * 2;
    LlmModel model(ConfigOf(name), weights);
    const std::map<std::string, int64_t> want{{dtype.name(), half}, {"float32", small * 2}};
    EXPECT_EQ(model.weight_bytes(), want) << name;
    model.Prefill({1, 2, 3});
    model.Step(4);
    EXPECT_EQ(model.weight_bytes(), want) << name << " after running";
  }
}

// The kernels a decode step of |name|'s model with |layers| layers launches; layers past the checkpoint's
// repeat its last one's weights.
size_t StepKernels(const std::string& name, int64_t layers) {
  LlmConfig config = ConfigOf(name);
  nn::StateDict weights = WeightsOf(name);
  const std::string last = "model.layers." + std::to_string(config.layers - 1) + ".";
  for (int64_t i = config.layers; i < layers; ++i)
    for (const auto& [key, w] : nn::StateDict(weights))
      if (key.rfind(last, 0) == 0) weights.emplace("model.layers." + std::to_string(i) + "." + key.substr(last.size()), w);
  config.layers = layers;
  LlmModel model(config, weights);
  model.Prefill({1, 2});
  model.Step(3);  // run
  model.Step(4);  // captured
  return model.captured_kernels();
}

// Each layer's q, k and v come from one matmul over their joined weight: a one-token step launches one
// kernel for the three projections, not three. Counted as the kernels a layer adds to the step, from three
// layers to four (from three on, the masks every layer reads are kernels of their own): that one, and
// the rest of the layer's, its two RMSNorms (a sum and a scaling each), the two cache writes, attention
// (scores, max, sum, softmax, the weighted values), o, the MLP (gate and up, down) and the rotary
// embedding of the queries and of the keys: the scores read each query once per cache slot, so the rotated
// queries are stored once rather than rotated for every slot.
TEST(LlmModel, DecodeStepProjectsQKVInOneKernelPerLayer) {
  constexpr size_t kQkvKernels = 1, kNormKernels = 4, kCacheKernels = 2, kAttentionKernels = 5, kOKernels = 1,
                   kMlpKernels = 2;
  for (const auto& [name, rotary_kernels] : {std::pair<std::string, size_t>{"llama", 2}, {"qwen2", 2}})
    EXPECT_EQ(StepKernels(name, 4) - StepKernels(name, 3), kQkvKernels + kNormKernels + kCacheKernels + kAttentionKernels +
                                                              kOKernels + kMlpKernels + rotary_kernels)
        << name;
}

TEST(LlmModel, MissingTensorIsNamed) {
  nn::StateDict weights = WeightsOf("llama");
  weights.erase("model.layers.1.mlp.up_proj.weight");
  try {
    LlmModel model(ConfigOf("llama"), weights);
    FAIL() << "loaded without a tensor";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing tensor \"model.layers.1.mlp.up_proj.weight\""));
  }
}

TEST(LlmModel, MisshapenTensorIsNamedWithTheShapeItShouldHave) {
  LlmConfig config = ConfigOf("llama");
  config.intermediate_size = 32;
  try {
    LlmModel model(config, WeightsOf("llama"));
    FAIL() << "loaded misshapen weights";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"model.layers.0.mlp.gate_proj.weight\" is (64, 32), expected (32, 32)"));
  }
}

TEST(LlmModel, TiedModelWithoutLmHeadButUntiedConfigIsAnError) {
  LlmConfig config = ConfigOf("qwen2");
  config.tie_word_embeddings = false;
  EXPECT_THAT([&] { LlmModel model(config, WeightsOf("qwen2")); },
              ::testing::ThrowsMessage<Error>(HasSubstr("missing tensor \"lm_head.weight\"")));
}

TEST(LlmModel, TokensOutsideTheVocabularyOrTheContextAreErrors) {
  LlmModel model(ConfigOf("llama"), WeightsOf("llama"), /*context=*/4);
  EXPECT_THAT([&] { model.Prefill({1, 100000}); }, ::testing::ThrowsMessage<Error>(HasSubstr("outside the vocabulary")));
  EXPECT_THAT([&] { model.Prefill({1, 2, 3, 4, 5}); }, ::testing::ThrowsMessage<Error>(HasSubstr("exceed the context of 4")));
  model.Prefill({1, 2, 3, 4});
  EXPECT_THAT([&] { model.Step(5); }, ::testing::ThrowsMessage<Error>(HasSubstr("exceed the context of 4")));
}

}  // namespace
}  // namespace tg::apps
