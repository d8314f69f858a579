// hip_device_close_test.cc: device_close "frees what the device still owns" (tg_plugin.h). On the
// ROCm 6 stub layout, whose runtime counts hipMalloc / hipFree and hipModuleLoadData /
// hipModuleUnload (stub_hip_hooks.h): buffers and programs the host never freed are freed when their
// device closes, and those it did free are not freed a second time.
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"
#include "tests/plugins/stub_driver_util.h"
#include "tests/plugins/stub_hip_hooks.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::StubHipCount;
using tg::testing::StubLoaded;

constexpr char kDrivers[] = "tests/plugins/stub_drivers";
constexpr char kKernel[] = "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }";

// The stub's counts of what the plugin allocated and freed, at one moment.
struct Counts {
  long mallocs = StubHipCount("hipMalloc"), frees = StubHipCount("hipFree");
  long loads = StubHipCount("hipModuleLoadData"), unloads = StubHipCount("hipModuleUnload");
};

class HipDeviceCloseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loaded_ = tg::testing::LoadWithDrivers(tg::testing::kHipPlugin, kDrivers);
    ASSERT_NE(loaded_.api, nullptr);
    ASSERT_EQ(loaded_.count, 1u) << loaded_.reason;
    ErrorChecker(api()).Ok(api()->device_open(0, &device_));
    ASSERT_NE(device_, nullptr);
  }
  void TearDown() override {
    if (device_ != nullptr) api()->device_close(device_);
  }
  const tg_plugin_api* api() const { return loaded_.api; }

  tg_buffer* Alloc(uint64_t bytes) {
    tg_buffer* b = nullptr;
    ErrorChecker(api()).Ok(api()->buffer_alloc(device_, bytes, 0, &b));
    return b;
  }
  // kKernel through the stub hiprtc; the stub runtime loads its code object.
  tg_program* Compile() {
    tg_compile_args a{};
    a.struct_size = sizeof a;
    a.device = device_;
    a.dialect = "hip-c";
    a.source = kKernel;
    a.source_len = sizeof kKernel - 1;
    a.entry = "k";
    tg_program* p = nullptr;
    ErrorChecker(api()).Ok(api()->program_compile(&a, &p));
    return p;
  }
  // |program|'s binary loaded again: a second module on the device.
  tg_program* Reload(tg_program* program) {
    const char* format = nullptr;
    const void* binary = nullptr;
    uint64_t len = 0;
    ErrorChecker(api()).Ok(api()->program_binary(program, &format, &binary, &len));
    tg_program* p = nullptr;
    ErrorChecker(api()).Ok(api()->program_load(device_, format, binary, len, "k", &p));
    return p;
  }
  void Close() {
    api()->device_close(device_);
    device_ = nullptr;
  }

  StubLoaded loaded_;
  tg_device* device_ = nullptr;
};

TEST_F(HipDeviceCloseTest, ClosingFreesTheBuffersAndProgramsTheHostLeftOpen) {
  Counts before;
  for (uint64_t bytes : {64, 4096, 1 << 20}) ASSERT_NE(Alloc(bytes), nullptr);
  tg_program* compiled = Compile();
  ASSERT_NE(compiled, nullptr);
  ASSERT_NE(Reload(compiled), nullptr);
  Counts open;
  EXPECT_EQ(open.mallocs - before.mallocs, 3);
  EXPECT_EQ(open.frees - before.frees, 0);
  EXPECT_EQ(open.loads - before.loads, 2);
  EXPECT_EQ(open.unloads - before.unloads, 0);

  Close();
  Counts closed;
  EXPECT_EQ(closed.frees - before.frees, 3);
  EXPECT_EQ(closed.unloads - before.unloads, 2);
  EXPECT_EQ(closed.mallocs, open.mallocs);
  EXPECT_EQ(closed.loads, open.loads);
}

TEST_F(HipDeviceCloseTest, WhatTheHostFreedIsNotFreedAgainAtClose) {
  Counts before;
  tg_buffer* kept = Alloc(256);
  tg_buffer* freed = Alloc(512);
  ASSERT_NE(kept, nullptr);
  ASSERT_NE(freed, nullptr);
  api()->buffer_free(freed);
  tg_program* destroyed = Compile();
  ASSERT_NE(destroyed, nullptr);
  tg_program* kept_program = Reload(destroyed);
  ASSERT_NE(kept_program, nullptr);
  api()->program_destroy(destroyed);
  Counts open;
  EXPECT_EQ(open.frees - before.frees, 1);
  EXPECT_EQ(open.unloads - before.unloads, 1);

  Close();
  Counts closed;
  EXPECT_EQ(closed.mallocs - before.mallocs, 2);
  EXPECT_EQ(closed.frees - before.frees, 2);
  EXPECT_EQ(closed.loads - before.loads, 2);
  EXPECT_EQ(closed.unloads - before.unloads, 2);
}

// The scratch buffer of an overlapping copy within one buffer is the plugin's own, freed at once.
TEST_F(HipDeviceCloseTest, AnOverlappingCopysScratchIsNotLeftForClose) {
  tg_buffer* b = Alloc(1024);
  ASSERT_NE(b, nullptr);
  std::string bytes(1024, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = char(i % 251);
  ErrorChecker(api()).Ok(api()->copy_h2d(nullptr, b, 0, bytes.data(), bytes.size(), nullptr));
  Counts before;
  ErrorChecker(api()).Ok(api()->copy_d2d(nullptr, b, 16, b, 0, 512, nullptr));
  Counts after;
  EXPECT_EQ(after.mallocs - before.mallocs, 1);
  EXPECT_EQ(after.frees - before.frees, 1);
  std::string out(1024, '\0');
  ErrorChecker(api()).Ok(api()->copy_d2h(nullptr, out.data(), b, 0, out.size(), nullptr));
  EXPECT_EQ(out.substr(16, 512), bytes.substr(0, 512));
  Close();
  EXPECT_EQ(Counts().frees - before.frees, 2);  // the scratch, then |b| at close
}

}  // namespace
