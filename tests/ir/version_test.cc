// The release version: one spelling in ir/version.h, the same through the macros and tg::version().
#include "ir/version.h"

#include <string>

#include "gtest/gtest.h"

namespace {

TEST(Version, FunctionMatchesMacros) {
  const std::string expected = std::to_string(TG_VERSION_MAJOR) + "." + std::to_string(TG_VERSION_MINOR) + "." +
                               std::to_string(TG_VERSION_PATCH);
  EXPECT_EQ(std::string(TG_VERSION_STRING), expected);
  EXPECT_EQ(std::string(tg::version()), expected);
}

}  // namespace
