// gpu_stub_driver_test.cc: the CUDA and HIP plugins on stub drivers laid out as CUDA and ROCm 6
// and later ship them: libcuda.so.1, and libamdhip64.so.6 beside a separate libhiprtc.so.6. Each
// plugin finds the one device and calls it a GPU (the host ranks devices by that); HIP takes
// hiprtc from libhiprtc.so.6, and its fingerprint and compile_only extension say so.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/hip/hip_compile_only.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::LoadWithDrivers;
using tg::testing::OpenTheOneDevice;
using tg::testing::StubDevice;
using tg::testing::StubLoaded;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";

TEST(CudaStubDriverTest, FindsTheDeviceAndCallsItAGpu) {
  StubDevice d;
  OpenTheOneDevice(LoadWithDrivers(tg::testing::kCudaPlugin, kDrivers), &d);
  ASSERT_NE(d.device, nullptr);
  const tg_device_props& p = d.props;
  EXPECT_EQ(p.device_type, TG_DEVICE_TYPE_GPU);
  EXPECT_STREQ(p.name, "Stub CUDA device");
  EXPECT_STREQ(p.vendor, "NVIDIA");
  EXPECT_STREQ(p.arch, "sm_80");
  EXPECT_EQ(p.global_mem_bytes, uint64_t{1} << 30);
  EXPECT_EQ(p.compute_units, 2u);
}

TEST(HipStubRuntimeTest, Rocm6LayoutFindsTheDeviceAndCallsItAGpu) {
  StubDevice d;
  OpenTheOneDevice(LoadWithDrivers(tg::testing::kHipPlugin, kDrivers), &d);
  ASSERT_NE(d.device, nullptr);
  const tg_device_props& p = d.props;
  EXPECT_EQ(p.device_type, TG_DEVICE_TYPE_GPU);
  EXPECT_STREQ(p.name, "Stub HIP device");
  EXPECT_STREQ(p.vendor, "AMD");
  EXPECT_STREQ(p.arch, "gfx90a");
  EXPECT_EQ(p.global_mem_bytes, uint64_t{1} << 30);
  // hiprtc came from the separate library: the device can be compiled for, and the fingerprint
  // (which changes when compiled binaries would) names that hiprtc.
  EXPECT_EQ(p.num_source_dialects, 1u);
  EXPECT_NE(std::string(p.compile_fingerprint).find("hiprtc 6.2 (libhiprtc.so.6)"), std::string::npos)
      << p.compile_fingerprint;
}

TEST(HipStubRuntimeTest, Rocm6LayoutCompilesThroughTheSeparateHiprtc) {
  StubLoaded l = LoadWithDrivers(tg::testing::kHipPlugin, kDrivers);
  ASSERT_NE(l.api, nullptr);
  auto* ext = reinterpret_cast<const tg_hip_compile_only_ext*>(
      tg::testing::FindExtension(l.api, TG_HIP_COMPILE_ONLY_NAME));
  ASSERT_NE(ext, nullptr);
  ASSERT_NE(ext->compiler_version(), nullptr);
  EXPECT_STREQ(ext->compiler_version(), "hiprtc 6.2 (libhiprtc.so.6)");
  // The stub's code object and its log name it: proof the calls reached it.
  const char src[] = "extern \"C\" __global__ void k() {}";
  char* code = nullptr;
  uint64_t len = 0;
  ErrorChecker(l.api).Ok(ext->compile(src, sizeof src - 1, "gfx90a", "hsaco", &code, &len));
  ASSERT_NE(code, nullptr);
  EXPECT_NE(std::string(code, len).find("stub hiprtc 6.2 code object for gfx90a"), std::string::npos);
  ext->free_code(code);
  const char bad[] = "#error no";
  std::string msg = ErrorChecker(l.api).Err(ext->compile(bad, sizeof bad - 1, "gfx90a", "hsaco", &code, &len),
                                            TG_CODE_INVALID_ARGUMENT);
  EXPECT_NE(msg.find("stub hiprtc met #error"), std::string::npos) << msg;
}

}  // namespace
