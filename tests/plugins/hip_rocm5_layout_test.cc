// hip_rocm5_layout_test.cc: the HIP plugin on a stub driver laid out as ROCm 5 ships it:
// libamdhip64.so.5 with hiprtc inside and no libhiprtc. The runtime is found after the newer names,
// and hiprtc is taken from the runtime itself.
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/hip_compile_only.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::LoadWithDrivers;
using tg::testing::OpenAndDescribe;
using tg::testing::StubLoaded;

constexpr char kDrivers[] = "tests/plugins/stub_rocm5";

TEST(HipStubRuntimeTest, Rocm5LayoutTakesHiprtcFromTheRuntime) {
  StubLoaded l = LoadWithDrivers(tg::testing::kHipPlugin, kDrivers);
  ASSERT_NE(l.api, nullptr);
  ASSERT_EQ(l.count, 1u) << l.reason;
  tg_device* d = nullptr;
  tg_device_props p = OpenAndDescribe(l.api, &d);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(p.device_type, TG_DEVICE_TYPE_GPU);
  EXPECT_EQ(p.num_source_dialects, 1u);
  EXPECT_NE(std::string(p.compile_fingerprint).find("hiprtc 5.2 (libamdhip64.so.5)"), std::string::npos)
      << p.compile_fingerprint;
  l.api->device_close(d);
}

}  // namespace
