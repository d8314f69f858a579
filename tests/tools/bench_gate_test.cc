// The regression gate of `tg bench --compare`: the Mann-Whitney U test against known values, and the
// gate on synthetic noisy reports, where it must catch a real 20% slowdown and leave pure noise alone.
// Figures are made up by a seeded generator: nothing here times anything.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ir/error.h"
#include "tools/bench/report.h"
#include "tools/bench/significance.h"

namespace tg::bench {
namespace {

// P-value of U by enumerating every way to pick which |a.size()| of the pooled values came from a.
double BruteForcePValue(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  auto u_of = [&](const std::vector<bool>& in_a) {
    double u = 0;
    for (size_t i = 0; i < pooled.size(); ++i)
      for (size_t j = 0; j < pooled.size(); ++j)
        if (in_a[i] && !in_a[j]) u += pooled[i] > pooled[j] ? 1 : pooled[i] == pooled[j] ? 0.5 : 0;
    return u;
  };
  std::vector<bool> mask(pooled.size(), false);
  std::fill(mask.begin(), mask.begin() + a.size(), true);
  double mn = static_cast<double>(a.size() * b.size());
  double observed = std::fabs(u_of(mask) - mn / 2);
  std::vector<bool> pick(pooled.size(), false);
  std::fill(pick.end() - static_cast<long>(a.size()), pick.end(), true);
  double total = 0, extreme = 0;
  do {
    ++total;
    if (std::fabs(u_of(pick) - mn / 2) >= observed - 1e-9) ++extreme;
  } while (std::next_permutation(pick.begin(), pick.end()));
  return extreme / total;
}

TEST(MannWhitneyU, CountsPairsAndMatchesTheExactDistribution) {
  std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  UTest t = MannWhitneyU(a, b);
  EXPECT_DOUBLE_EQ(t.u, 0);
  EXPECT_TRUE(t.exact);
  // The most uneven split of 5 + 5: 2 of the C(10, 5) = 252 arrangements are at least as extreme.
  EXPECT_NEAR(t.p_value, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(MannWhitneyU(b, a).u, 25);
}

TEST(MannWhitneyU, ExactPValueAgreesWithEnumeration) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> a(3 + trial % 4), b(4 + trial % 3);
    for (double& v : a) v = d(rng) + 0.1 * (trial % 3);
    for (double& v : b) v = d(rng);
    UTest t = MannWhitneyU(a, b);
    ASSERT_TRUE(t.exact);
    EXPECT_NEAR(t.p_value, BruteForcePValue(a, b), 1e-12) << "trial " << trial;
  }
}

TEST(MannWhitneyU, TiesUseTheCorrectedNormalApproximation) {
  std::vector<double> a = {1, 1, 2, 2, 3, 3}, b = {2, 3, 3, 4, 4, 5};
  UTest t = MannWhitneyU(a, b);
  EXPECT_FALSE(t.exact);
  // Pairs with a > b: the two 3s over b's 2 (2); ties count one half: 2s with b's 2 (1), 3s with b's 3s (2).
  EXPECT_DOUBLE_EQ(t.u, 5);
  // Enumeration agrees with the approximation to a few hundredths at this size.
  EXPECT_NEAR(t.p_value, BruteForcePValue(a, b), 0.03);
  std::vector<double> same = {4, 4, 4};
  EXPECT_DOUBLE_EQ(MannWhitneyU(same, same).p_value, 1);
}

TEST(MannWhitneyU, EmptySampleIsAnError) {
  EXPECT_THROW(MannWhitneyU({}, {1.0}), Error);
}

// A workload's samples on a shared machine: a median of |center| with log-normal noise (long right tail
// in time) of |cv|, and now and then a run that another process slowed by half.
Record NoisyRecord(std::mt19937& rng, double center_ms, double cv, int n) {
  std::normal_distribution<double> noise(0, cv);
  std::uniform_real_distribution<double> u(0, 1);
  Record r{"W6_transformer_fb", "CPU", "median", 0, "ms/iter"};
  for (int i = 0; i < n; ++i) {
    double v = center_ms * std::exp(noise(rng));
    if (u(rng) < 0.1) v *= 1.5;
    r.samples.push_back(v);
  }
  std::vector<double> s = r.samples;
  std::sort(s.begin(), s.end());
  r.value = s[s.size() / 2];
  return r;
}

struct GateCounts {
  int flagged = 0;
  int trials = 0;
};

GateCounts RunGate(double slowdown, double cv, int reps, size_t keep_samples, uint32_t seed) {
  std::mt19937 rng(seed);
  GateCounts c;
  for (int trial = 0; trial < 300; ++trial) {
    Record base = NoisyRecord(rng, 100, cv, reps), cur = NoisyRecord(rng, 100 * slowdown, cv, reps);
    base.samples.resize(std::min(base.samples.size(), keep_samples));
    cur.samples.resize(std::min(cur.samples.size(), keep_samples));
    CompareResult r = Compare(Report{{}, {cur}}, Report{{}, {base}}, {0.9, 0.05});
    c.flagged += r.any_regressed ? 1 : 0;
    ++c.trials;
  }
  std::printf("slowdown %.2f, cv %.2f, %d reps: flagged %d of %d\n", slowdown, cv, reps, c.flagged, c.trials);
  return c;
}

TEST(RegressionGate, CatchesARealTwentyPercentSlowdown) {
  GateCounts c = RunGate(/*slowdown=*/1.2, /*cv=*/0.08, /*reps=*/20, /*keep_samples=*/20, 11);
  EXPECT_GE(c.flagged, c.trials * 95 / 100) << c.flagged << " of " << c.trials;
}

TEST(RegressionGate, LeavesPureNoiseAlone) {
  GateCounts c = RunGate(/*slowdown=*/1.0, /*cv=*/0.08, /*reps=*/20, /*keep_samples=*/20, 12);
  EXPECT_LE(c.flagged, c.trials * 2 / 100) << c.flagged << " of " << c.trials;
}

TEST(RegressionGate, TheTestIsWhatKeepsNoiseOutNotTheThreshold) {
  // The same noise judged by the ratio of single runs alone (no samples to test): the threshold by
  // itself flags a good share of noise, which is why the gate asks the U test too.
  GateCounts threshold_only = RunGate(1.0, 0.08, /*reps=*/1, /*keep_samples=*/0, 13);
  EXPECT_GE(threshold_only.flagged, threshold_only.trials * 5 / 100) << threshold_only.flagged;
}

TEST(RegressionGate, SaysWhichRuleDecided) {
  std::mt19937 rng(5);
  Record base = NoisyRecord(rng, 100, 0.02, 10), slow = NoisyRecord(rng, 130, 0.02, 10);
  CompareResult tested = Compare(Report{{}, {slow}}, Report{{}, {base}}, {0.9, 0.05});
  ASSERT_EQ(tested.rows.size(), 1u);
  EXPECT_TRUE(tested.rows[0].tested);
  EXPECT_LT(tested.rows[0].p_value, 0.05);
  EXPECT_EQ(tested.rows[0].verdict, "regressed: below the threshold and significant");
  slow.samples.resize(3);
  CompareResult untested = Compare(Report{{}, {slow}}, Report{{}, {base}}, {0.9, 0.05});
  EXPECT_FALSE(untested.rows[0].tested);
  EXPECT_TRUE(untested.rows[0].regressed);
  EXPECT_NE(untested.rows[0].verdict.find("threshold only"), std::string::npos);
}

TEST(RegressionGate, SamplesSurviveTheJsonFile) {
  Record r{"W1_matmul_1024", "CPU", "median", 10, "GFLOP/s"};
  r.samples = {9.5, 10, 10.25};
  Report back = FromJson(ToJson(Report{{}, {r}}), "test");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].samples, r.samples);
  EXPECT_THROW(FromJson(R"({"results": [{"name": "a", "value": 1, "samples": ["x"]}]})", "x.json"), Error);
}

}  // namespace
}  // namespace tg::bench
