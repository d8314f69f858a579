// apps/llm_sampler: greedy and sampled choices, the seed, top-k/top-p limits, the repetition penalty,
// and the refused options.
#include "apps/llm_sampler.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/error.h"

namespace tg::apps {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const std::vector<float> kLogits = {1.0f, 3.0f, 2.9f, -1.0f, 0.5f};

std::set<int> Draws(const SamplingOptions& o, int n = 300) {
  Sampler s(o);
  std::set<int> seen;
  for (int i = 0; i < n; ++i) seen.insert(s.Next(kLogits, {}));
  return seen;
}

TEST(LlmSampler, GreedyTakesTheLargestLogit) { EXPECT_EQ(Sampler({}).Next(kLogits, {}), 1); }

TEST(LlmSampler, TopKAndTopPLimitTheCandidates) {
  EXPECT_EQ(Draws({1.0, 1, 1.0, 1.0, 7}), std::set<int>{1});
  EXPECT_EQ(Draws({1.0, 2, 1.0, 1.0, 7}), (std::set<int>{1, 2}));
  EXPECT_EQ(Draws({1.0, 0, 0.01, 1.0, 7}), std::set<int>{1});
  EXPECT_EQ(Draws({100.0, 0, 1.0, 1.0, 7}).size(), 5u);  // a high temperature flattens the distribution
}

TEST(LlmSampler, TheSeedMakesSamplingReproducible) {
  auto run = [](uint64_t seed) {
    Sampler s({1.0, 0, 1.0, 1.0, seed});
    std::vector<int> out;
    for (int i = 0; i < 50; ++i) out.push_back(s.Next(kLogits, {}));
    return out;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(LlmSampler, RepetitionPenaltyDemotesSeenTokens) {
  Sampler s({0.0, 0, 1.0, 1.5, 0});
  EXPECT_EQ(s.Next(kLogits, {1}), 2);     // 3.0 / 1.5 = 2.0 < 2.9
  EXPECT_EQ(s.Next({-1.0f, -1.2f}, {0}), 1);  // negative logits are multiplied: -1.5 < -1.2
}

TEST(LlmSampler, BadOptionsAreRefused) {
  EXPECT_THAT([] { Sampler({-1.0, 0, 1.0, 1.0, 0}); }, ThrowsMessage<Error>(HasSubstr("--temperature must be >= 0")));
  EXPECT_THAT([] { Sampler({1.0, -2, 1.0, 1.0, 0}); }, ThrowsMessage<Error>(HasSubstr("--top_k must be >= 0")));
  EXPECT_THAT([] { Sampler({1.0, 0, 0.0, 1.0, 0}); }, ThrowsMessage<Error>(HasSubstr("--top_p must be in (0, 1]")));
  EXPECT_THAT([] { Sampler({1.0, 0, 1.0, 0.0, 0}); }, ThrowsMessage<Error>(HasSubstr("--repetition_penalty must be > 0")));
}

}  // namespace
}  // namespace tg::apps
