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
using tg::testing::OpenTheOneDevice;
using tg::testing::StubDevice;

constexpr char kDrivers[] = "tests/plugins/stub_rocm5";

TEST(HipStubRuntimeTest, Rocm5LayoutTakesHiprtcFromTheRuntime) {
  StubDevice d;
  OpenTheOneDevice(LoadWithDrivers(tg::testing::kHipPlugin, kDrivers), &d);
  ASSERT_NE(d.device, nullptr);
  const tg_device_props& p = d.props;
  EXPECT_EQ(p.device_type, TG_DEVICE_TYPE_GPU);
  EXPECT_EQ(p.num_source_dialects, 1u);
  EXPECT_NE(std::string(p.compile_fingerprint).find("hiprtc 5.2 (libamdhip64.so.5)"), std::string::npos)
      << p.compile_fingerprint;
}

}  // namespace
