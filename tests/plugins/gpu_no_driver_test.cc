// gpu_no_driver_test.cc: the CUDA and HIP plugins where a directory holds none of their libraries
// (dlopen confined to it, so the machine's own drivers cannot answer): zero devices, and a reason
// that names every library tried, so a user can see which one to install.
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/hip_compile_only.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::LoadWithDrivers;
using tg::testing::StubLoaded;

constexpr char kNoDrivers[] = "tests/plugins/no_drivers";  // does not exist

TEST(CudaNoDriverTest, ZeroDevicesNamingTheDriver) {
  StubLoaded l = LoadWithDrivers(tg::testing::kCudaPlugin, kNoDrivers);
  ASSERT_NE(l.api, nullptr);
  EXPECT_EQ(l.count, 0u);
  EXPECT_NE(l.reason.find("libcuda.so.1"), std::string::npos) << l.reason;
}

TEST(HipNoDriverTest, ZeroDevicesNamingEveryLibraryTried) {
  StubLoaded l = LoadWithDrivers(tg::testing::kHipPlugin, kNoDrivers);
  ASSERT_NE(l.api, nullptr);
  EXPECT_EQ(l.count, 0u);
  for (const char* name : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so:"}) {
    EXPECT_NE(l.reason.find(name), std::string::npos) << name << " in: " << l.reason;
  }
  tg_device* d = nullptr;
  std::string msg = ErrorChecker(l.api).Err(l.api->device_open(0, &d), TG_CODE_NOT_FOUND);
  EXPECT_NE(msg.find(l.reason), std::string::npos) << msg;
}

TEST(HipNoDriverTest, CompileOnlyIsUnavailableNamingTheLibraries) {
  StubLoaded l = LoadWithDrivers(tg::testing::kHipPlugin, kNoDrivers);
  ASSERT_NE(l.api, nullptr);
  auto* ext = reinterpret_cast<const tg_hip_compile_only_ext*>(
      tg::testing::FindExtension(l.api, TG_HIP_COMPILE_ONLY_NAME));
  ASSERT_NE(ext, nullptr);
  EXPECT_EQ(ext->compiler_version(), nullptr);
  const char src[] = "extern \"C\" __global__ void k() {}";
  char* code = nullptr;
  uint64_t len = 0;
  std::string msg = ErrorChecker(l.api).Err(ext->compile(src, sizeof src - 1, "gfx90a", "hsaco", &code, &len),
                                            TG_CODE_UNAVAILABLE);
  EXPECT_NE(msg.find("libamdhip64.so.6"), std::string::npos) << msg;
}

}  // namespace
