// apps/gpt2_model: a tiny random GPT-2 gives PyTorch's logits (tests/apps/make_gpt2_golden.py) to 1e-4,
// both over the whole sequence and token by token through the KV cache.
#include "apps/gpt2_model.h"

#include <fstream>
#include <sstream>

#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace tg::apps {
namespace {

nlohmann::json Golden() {
  std::ifstream in("tests/apps/data/gpt2_golden.json");
  std::ostringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

TEST(Gpt2, FullSequenceLogitsMatchPyTorch) {
  nlohmann::json g = Golden();
  std::vector<int32_t> ids = g["ids"].get<std::vector<int32_t>>();
  std::vector<float> want = g["logits"].get<std::vector<float>>();
  Gpt2 model("tests/apps/data/gpt2_tiny.safetensors", g["heads"].get<int>());
  int64_t t = static_cast<int64_t>(ids.size());
  std::vector<float> got = model.Forward(Tensor::from_vector(ids, Shape{1, t})).to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "logit " << i;
}

TEST(Gpt2, KvCacheStepsMatchPyTorch) {
  nlohmann::json g = Golden();
  std::vector<int> ids = g["ids"].get<std::vector<int>>();
  std::vector<float> want = g["logits"].get<std::vector<float>>();
  Gpt2 model("tests/apps/data/gpt2_tiny.safetensors", g["heads"].get<int>());
  const size_t vocab = static_cast<size_t>(model.vocab());
  // Four steps: a plain run, the JIT capture, then two replays that must read the cache they wrote.
  for (size_t pos = 0; pos < 4; ++pos) {
    std::vector<float> got = model.Step(ids[pos]);
    ASSERT_EQ(got.size(), vocab);
    for (size_t i = 0; i < vocab; ++i) ASSERT_NEAR(got[i], want[pos * vocab + i], 1e-4) << "pos " << pos << " logit " << i;
  }
}

// The position is a tg::Variable: the first step compiles, every later one replays the same capture.
TEST(Gpt2, StepsAfterTheFirstCompileNothing) {
  nlohmann::json g = Golden();
  std::vector<int> ids = g["ids"].get<std::vector<int>>();
  Gpt2 model("tests/apps/data/gpt2_tiny.safetensors", g["heads"].get<int>());
  model.Step(ids[0]);
  const uint64_t after_first = programs_made();
  for (size_t pos = 1; pos < ids.size(); ++pos) model.Step(ids[pos]);
  EXPECT_GE(ids.size(), 4u);
  EXPECT_EQ(programs_made(), after_first) << "a decoding step after the first compiled a kernel";
}

TEST(Gpt2, MissingTensorIsANamedError) {
  EXPECT_THROW(Gpt2("tests/apps/data/vocab.json", 2), Error);
}

}  // namespace
}  // namespace tg::apps
