// Execution tiers (docs/tiers.md): the TG_TIER knob, a kernel run once is never compiled, a kernel run
// often moves to the optimized tier in the background and keeps its results, tg::Jit captures the
// optimized tier, and eight threads realizing at once tier up safely (this test also runs under TSan).
#include <cstdlib>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include "compiler/kernel_cache.h"
#include "compiler/schedule/schedule.h"
#include "compiler/tier_policy.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "ir/error.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

runtime::Device& Cpu() { return *runtime::DeviceRegistry::Global().GetDevice("CPU").value(); }
uint64_t Compiles() { return Cpu().program_cache().counters().compiles.load(); }
uint64_t DiskLoads() { return Cpu().program_cache().counters().disk_loads.load(); }
uint64_t Interpreted() { return Cpu().program_cache().counters().interpreted.load(); }
uint64_t OptimizedPrograms() { return Compiles() + DiskLoads(); }

class TierEnv {
 public:
  explicit TierEnv(const char* value) {
    if (value == nullptr) unsetenv("TG_TIER");
    else setenv("TG_TIER", value, 1);
  }
  ~TierEnv() { unsetenv("TG_TIER"); }
};

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 97) - 3.0f;
  return v;
}

// A kernel of its own per |cols|: the kernel cache is the process's, so each case uses a shape no
// other case does.
std::vector<float> Realized(int64_t cols, float scale) {
  Tensor a = Tensor::from_vector<float>(Ramp(4 * cols, scale), {4, cols});
  return (a * 1.5f + 0.25f).relu().sum({1}).to_vector<float>();
}

UOpRef AstOf(int64_t cols) {
  Tensor a = Tensor::from_vector<float>(Ramp(4 * cols, 1), {4, cols});
  Tensor y = (a * 1.5f + 0.25f).relu().sum({1});
  return CreateSchedule({y.uop()}, {y.device()}).items.at(0).ast;
}

TEST(TierMode, ParsesEveryValue) {
  EXPECT_EQ(ParseTierMode("auto"), TierMode::kAuto);
  EXPECT_EQ(ParseTierMode(""), TierMode::kAuto);
  EXPECT_EQ(ParseTierMode("0"), TierMode::kFirst);
  EXPECT_EQ(ParseTierMode("1"), TierMode::kOptimized);
}

TEST(TierMode, RefusesABadValueSayingWhatIsAllowed) {
  for (const char* bad : {"2", "fast", "01", " 1"}) {
    try {
      ParseTierMode(bad);
      FAIL() << bad;
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("auto"), std::string::npos) << what;
    }
  }
  TierEnv bad("sometimes");
  EXPECT_THROW(Realized(101, 1), Error);
}

TEST(TierUpPolicy, ARunOnceKernelNeverMovesUp) {
  TierUpPolicy policy;
  EXPECT_FALSE(policy.ShouldTierUp(1, 1e12));
  EXPECT_TRUE(policy.ShouldTierUp(2, policy.work / 2));
  EXPECT_FALSE(policy.ShouldTierUp(2, 1));
  EXPECT_TRUE(policy.ShouldTierUp(policy.launches, 0));
}

TEST(TierUpPolicy, AKernelTooBigToInterpretStartsOptimized) {
  TierUpPolicy policy;
  Tensor small = Tensor::randn({64, 64}), big = Tensor::randn({1024, 1024});
  auto ast = [](const Tensor& t) { return CreateSchedule({t.uop()}, {t.device()}).items.at(0).ast; };
  EXPECT_FALSE(policy.StartsOptimized(ast(small.matmul(small))));  // 64^3 multiply-adds
  EXPECT_TRUE(policy.StartsOptimized(ast(big.matmul(big))));      // 1024^3
  EXPECT_NEAR(KernelWork(ast(small + 1)), 64.0 * 64 * 3, 64.0 * 64 * 2);  // a load, an add, a store
}

TEST(Tiers, AKernelRunOnceIsNeverCompiled) {
  TierEnv tier(nullptr);
  uint64_t optimized = OptimizedPrograms(), interpreted = Interpreted();
  std::vector<float> got = Realized(103, 1);
  EXPECT_EQ(OptimizedPrograms(), optimized);
  EXPECT_EQ(Interpreted(), interpreted + 1);
  ASSERT_EQ(got.size(), 4u);
}

TEST(Tiers, AKernelRunOftenMovesUpAtTheSameLaunchEveryTime) {
  TierEnv tier(nullptr);
  TierUpPolicy policy;
  uint64_t optimized = OptimizedPrograms();
  std::vector<float> first = Realized(107, 0.5f);  // launch 1
  std::shared_ptr<TieredKernel> kernel = KernelCache::Global().Find(AstOf(107), Cpu());
  ASSERT_NE(kernel, nullptr);
  // A kernel this small moves up by its launch count: the compile starts at launch `launches`, and the
  // optimized kernel runs from `swap_after` launches later, whenever the compile finished.
  for (int64_t launch = 2; launch < policy.launches + policy.swap_after; ++launch) {
    EXPECT_EQ(Realized(107, 0.5f), first) << "launch " << launch;
    if (launch < policy.launches) EXPECT_EQ(OptimizedPrograms(), optimized) << "launch " << launch;
  }
  EXPECT_EQ(kernel->launches(), policy.launches + policy.swap_after - 1);
  EXPECT_EQ(kernel->ForLaunch()->tier, 1);  // waits for the compile if it is still running
  EXPECT_EQ(OptimizedPrograms(), optimized + 1);
  EXPECT_EQ(Realized(107, 0.5f), first);
}

TEST(Tiers, TheFirstTierAloneNeverCompiles) {
  TierEnv tier("0");
  uint64_t optimized = OptimizedPrograms();
  std::vector<float> first = Realized(109, 2);
  for (int i = 0; i < 3 * TierUpPolicy().launches; ++i) EXPECT_EQ(Realized(109, 2), first);
  EXPECT_EQ(OptimizedPrograms(), optimized);
}

TEST(Tiers, TheOptimizedTierAloneCompilesBeforeTheFirstRun) {
  TierEnv tier("1");
  uint64_t optimized = OptimizedPrograms(), interpreted = Interpreted();
  Realized(113, 1);
  EXPECT_EQ(OptimizedPrograms(), optimized + 1);
  EXPECT_EQ(Interpreted(), interpreted);
}

TEST(Tiers, BothTiersGiveTheSameResults) {
  std::vector<float> first, optimized;
  {
    TierEnv tier("0");
    first = Realized(127, 0.75f);
  }
  {
    TierEnv tier("1");
    Tensor a = Tensor::from_vector<float>(Ramp(4 * 127, 0.75f), {4, 127});
    optimized = (a * 1.5f + 0.25f).relu().sum({1}).to_vector<float>();
  }
  ASSERT_EQ(first.size(), optimized.size());
  for (size_t i = 0; i < first.size(); ++i) EXPECT_NEAR(first[i], optimized[i], 1e-4f * std::abs(first[i]));
}

TEST(Tiers, AJitCapturesTheOptimizedTier) {
  TierEnv tier(nullptr);
  uint64_t optimized = OptimizedPrograms();
  Jit step([](const std::vector<Tensor>& in) { return std::vector<Tensor>{(in[0] * 3.0f - 1.0f).relu()}; });
  Tensor x = Tensor::from_vector<float>(Ramp(131, 1), {131});
  std::vector<float> want = step({x})[0].to_vector<float>();
  EXPECT_EQ(OptimizedPrograms(), optimized);  // the first call ran in the first tier
  EXPECT_EQ(step({x})[0].to_vector<float>(), want);  // captured: the optimized kernels
  EXPECT_GT(OptimizedPrograms(), optimized);
  EXPECT_EQ(step({x})[0].to_vector<float>(), want);
}

TEST(Tiers, EightThreadsTierUpTogether) {
  TierEnv tier(nullptr);
#if defined(__SANITIZE_THREAD__)
  const int runs = 12;  // TSan runs every access ~10x slower
#else
  const int runs = 40;
#endif
  std::vector<float> want = Realized(137, 1);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < runs; ++i) {
        if (Realized(137, 1) != want) ++mismatches[t];
        Realized(139 + 2 * (t % 2), 1);  // two more kernels shared by half the threads each
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace tg::compiler
