// fashion_mnist as a user runs it, on a fixed subset: the first 6000 training images for one epoch of
// batch 32 (187 steps), then the first 2000 test images. It must print a test accuracy of at least 80%.
// Needs Debian's dataset-fashion-mnist (tools/setup.sh); skips, saying so, without it.
#include <sys/stat.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/apps/app_runner.h"

namespace tg::apps_test {
namespace {

constexpr char kData[] = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnistApp, ReachesEightyPercentOnAFixedSubset) {
  struct stat st;
  if (stat((std::string(kData) + "/train-images-idx3-ubyte.gz").c_str(), &st) != 0)
    GTEST_SKIP() << kData << " is absent: install dataset-fashion-mnist (tools/setup.sh)";
  AppRun run = RunApp("fashion_mnist", {"--train_limit=6000", "--test_limit=2000", "--epochs=1", "--batch=32",
                                        "--device=CPU"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("6000 train / 2000 test images"), std::string::npos) << run.output;
  std::optional<double> acc = LastNumber(run.output, R"(test accuracy: ([0-9.]+)%)");
  ASSERT_TRUE(acc.has_value()) << run.output;
  EXPECT_GE(*acc, 80.0) << run.output;
}

TEST(FashionMnistApp, TestLimitMustBeWholeEvaluationBatches) {
  AppRun run = RunApp("fashion_mnist", {"--test_limit=1500", "--epochs=0"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("--test_limit must be a multiple of 1000, got 1500"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace tg::apps_test
