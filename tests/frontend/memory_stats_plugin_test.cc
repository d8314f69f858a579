// tg::memory_stats on a device whose plugin has no "tg.memory_stats" (the third-party example, ACME):
// a tg::Error naming the plugin and the extension, not zeros that would read as "nothing in use".
#include <cstdlib>
#include <filesystem>
#include <string>

#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg {
namespace {

TEST(MemoryStatsPlugin, APluginWithoutTheExtensionIsAnErrorNamingIt) {
  // Before the first tg call: the registry reads TG_PLUGIN_PATH when it loads the plugins.
  const std::string acme = std::filesystem::absolute("examples/third_party_plugin/libtg_acme.so").string();
  ASSERT_TRUE(std::filesystem::exists(acme)) << acme;
  setenv("TG_PLUGIN_PATH", acme.c_str(), 1);
  std::string device;
  for (const DeviceDescription& d : available_devices())
    if (d.name.rfind("ACME", 0) == 0) device = d.name;
  ASSERT_FALSE(device.empty()) << "ACME was not loaded from " << acme;
  try {
    memory_stats(device);
    FAIL() << "expected a tg::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("ACME"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("has no tg.memory_stats extension"));
  }
  EXPECT_GT(memory_stats("CPU").bytes_limit, 0u);  // the CPU plugin's beside it still answers
}

}  // namespace
}  // namespace tg
