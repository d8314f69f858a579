#include "ir/env.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace tg {
namespace {

TEST(EnvTest, ParsesIntegersAndFallsBackOnGarbage) {
  setenv("TG_TEST_KNOB", "4", 1);
  EXPECT_EQ(GetEnvInt("TG_TEST_KNOB", 7), 4);
  setenv("TG_TEST_KNOB", "-12", 1);
  EXPECT_EQ(GetEnvInt("TG_TEST_KNOB", 7), -12);
  setenv("TG_TEST_KNOB", "4x", 1);
  EXPECT_EQ(GetEnvInt("TG_TEST_KNOB", 7), 7);
  setenv("TG_TEST_KNOB", "", 1);
  EXPECT_EQ(GetEnvInt("TG_TEST_KNOB", 7), 7);
  unsetenv("TG_TEST_KNOB");
  EXPECT_EQ(GetEnvInt("TG_TEST_KNOB", 7), 7);
}

TEST(EnvTest, StringsPassThrough) {
  setenv("TG_TEST_DEVICE", "OPENCL:1", 1);
  EXPECT_EQ(GetEnvString("TG_TEST_DEVICE", "CPU"), "OPENCL:1");
  unsetenv("TG_TEST_DEVICE");
  EXPECT_EQ(GetEnvString("TG_TEST_DEVICE", "CPU"), "CPU");
}

TEST(EnvTest, DebugLevelIsCachedOnFirstRead) {
  int64_t first = DebugLevel();
  setenv("DEBUG", first == 5 ? "6" : "5", 1);
  EXPECT_EQ(DebugLevel(), first);
}

}  // namespace
}  // namespace tg
