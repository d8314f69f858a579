// apps/char_gpt.h's CharGptDecoder: byte by byte through the KV cache, each step's logits equal the full
// forward's at that position, and every step after the capture replays it without compiling.
#include <string>
#include <vector>

#include "apps/char_gpt.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::apps {
namespace {

GptConfig Small() {
  GptConfig c;
  c.context = 16, c.dim = 32, c.layers = 2, c.heads = 4;
  return c;
}

TEST(CharGptDecoder, StepsMatchTheFullForwardAndCompileOnce) {
  Tensor::manual_seed(5);
  CharGpt model(Small());
  const std::string text = "the quick brown!";  // 16 bytes: the whole context
  std::vector<int32_t> bytes(text.begin(), text.end());
  const int64_t n = static_cast<int64_t>(bytes.size()), vocab = model.config.vocab;
  std::vector<float> full = model(Tensor::from_vector(bytes, Shape{1, n})).to_vector<float>();
  CharGptDecoder decoder(model);
  uint64_t made = 0;
  for (int64_t p = 0; p < n; ++p) {
    if (p == 2) made = programs_made();  // the first step ran, the second captured
    std::vector<float> got = decoder.Step(bytes[p]);
    ASSERT_EQ(static_cast<int64_t>(got.size()), vocab);
    for (int64_t v = 0; v < vocab; ++v) ASSERT_NEAR(got[v], full[p * vocab + v], 1e-4) << "position " << p << " byte " << v;
  }
  EXPECT_EQ(programs_made(), made) << "a step after the capture compiled a kernel";
  try {
    decoder.Step(1);
    FAIL() << "expected a tg::Error once the context is full";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("context of 16 bytes is full"));
  }
}

// Greedy sampling reads the decoder while the text fits the context and the sliding window after: the
// bytes are those of running the full forward for every byte.
TEST(CharGptDecoder, GreedySampleEqualsTheFullForwardsChoice) {
  Tensor::manual_seed(6);
  CharGpt model(Small());
  std::mt19937_64 rng(1);
  std::string sampled = Sample(model, "abc", 20, 0.0, 0, rng);  // 3 + 20 bytes: past the context of 16
  std::string want = "abc";
  for (int i = 0; i < 20; ++i) {
    int64_t start = std::max<int64_t>(0, static_cast<int64_t>(want.size()) - 16), len = want.size() - start;
    std::vector<int32_t> window;
    for (int64_t k = start; k < static_cast<int64_t>(want.size()); ++k) window.push_back(static_cast<unsigned char>(want[k]));
    std::vector<float> logits = model(Tensor::from_vector(window, Shape{1, len})).to_vector<float>();
    auto last = logits.begin() + (len - 1) * 256;
    want += static_cast<char>(std::max_element(last, last + 256) - last);
  }
  EXPECT_EQ(sampled, want);
}

}  // namespace
}  // namespace tg::apps
