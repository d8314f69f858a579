// Realize with several new kernels: their compiles run side by side (runtime/task_pool.h) and the
// values are those of the kernels run one by one. Under CC=/bin/false (its own target) every compile
// fails, and the failure must surface from realize as a tg::Error naming the kernel, every time.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "frontend/tg.h"
#include "runtime/device_registry.h"

namespace {

// Before anything loads a plugin: this test's own cache (no kernel is found on disk), and the
// compiler the failing variant asks for.
const bool kEnvironment = [] {
  if (const char* tmp = std::getenv("TEST_TMPDIR")) setenv("TG_CACHE_DIR", tmp, 1);
  if (const char* cc = std::getenv("TG_TEST_CC")) setenv("CC", cc, 1);
  return true;
}();

// Five independent results from one schedule: five kernels that are all new to this process.
std::vector<tg::Tensor> FiveKernels(const std::vector<float>& values) {
  tg::Tensor x = tg::Tensor::from_vector<float>(values, tg::Shape{4, 8}, "CPU");
  return {(x * 3.0f + 1.0f), x.sum({1}), x.max({0}), (x - 2.0f).relu().sum({0}), x.exp2()};
}

std::vector<float> Inputs() {
  std::vector<float> v(32);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 11) - 4.0f;
  return v;
}

TEST(ParallelCompile, ASchedulesNewKernelsComputeWhatEachComputesAlone) {
  std::vector<float> in = Inputs();
  std::vector<tg::Tensor> together = FiveKernels(in);
  tg::Tensor::realize_all(together);
  const auto& counters = tg::runtime::DeviceRegistry::Global().GetDevice("CPU").value()->program_cache().counters();
  EXPECT_GE(counters.compiles.load(), 5u);
  // The same kernels again, each realized alone: every one is a kernel-cache hit now, run by itself.
  std::vector<tg::Tensor> alone = FiveKernels(in);
  for (size_t i = 0; i < alone.size(); ++i) {
    std::vector<float> a = together[i].to_vector<float>(), b = alone[i].to_vector<float>();
    EXPECT_EQ(a, b) << "result " << i;
  }
  std::vector<float> scaled = together[0].to_vector<float>(), sums = together[1].to_vector<float>();
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(scaled[i], in[i] * 3.0f + 1.0f);
  for (int r = 0; r < 4; ++r) {
    float s = 0;
    for (int c = 0; c < 8; ++c) s += in[r * 8 + c];
    EXPECT_FLOAT_EQ(sums[r], s);
  }
}

TEST(ParallelCompile, FailedCompilesSurfaceAsTgErrorsEveryTime) {
  ASSERT_NE(std::getenv("TG_TEST_CC"), nullptr) << "runs as parallel_compile_failure_test (TG_TEST_CC set)";
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      tg::Tensor::realize_all(FiveKernels(Inputs()));
      ADD_FAILURE() << "realize succeeded with a compiler that always fails";
    } catch (const tg::Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("compiling kernel"), std::string::npos) << what;
      EXPECT_NE(what.find("C compile failed"), std::string::npos) << what;
    }
  }
}

}  // namespace
