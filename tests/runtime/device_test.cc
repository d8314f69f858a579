// device_test.cc: the CPU plugin through runtime::Device: compile, cache, launch, copy, errors.
#include "runtime/device.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

using tg::testing::kCPrelude;

class DeviceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Hermetic kernel cache per test run (the default-directory fallback is tested elsewhere).
    if (const char* tmp = std::getenv("TEST_TMPDIR")) setenv("TG_CACHE_DIR", tmp, 1);
    registry_ = new DeviceRegistry({"./plugins/cpu/libtg_cpu.so"});
  }
  static void TearDownTestSuite() {
    delete registry_;
    registry_ = nullptr;
  }
  Device& Cpu() {
    absl::StatusOr<Device*> d = registry_->GetDevice("CPU");
    EXPECT_TRUE(d.ok()) << d.status();
    return **d;
  }
  static DeviceRegistry* registry_;
};
DeviceRegistry* DeviceTest::registry_ = nullptr;

KernelSource VectorAdd() { return {"c", std::string(kCPrelude) + tg::testing::kVectorAdd, "vadd"}; }

TEST_F(DeviceTest, CpuInfoIsFilledIn) {
  const DeviceInfo& info = Cpu().info();
  EXPECT_EQ(info.name, "CPU");
  EXPECT_EQ(info.plugin, "CPU");
  EXPECT_TRUE(info.SupportsDialect("c"));
  EXPECT_FALSE(info.SupportsDialect("cuda-c"));
  EXPECT_EQ(info.arch.rfind("x86_64-", 0), 0u) << info.arch;
  EXPECT_GE(info.preferred_vector_width, 4u);
  EXPECT_GE(info.compute_units, 1u);
  EXPECT_GT(info.global_mem_bytes, 0u);
  EXPECT_NE(info.caps & TG_CAP_TIMING, 0u);
  EXPECT_NE(info.fingerprint.find(info.arch), std::string::npos);
  EXPECT_FALSE(info.description.empty());
}

TEST_F(DeviceTest, VectorAddOverSeveralWorkgroups) {
  Device& cpu = Cpu();
  absl::StatusOr<std::shared_ptr<Program>> program = cpu.GetProgram(VectorAdd());
  ASSERT_TRUE(program.ok()) << program.status();

  const int n = 1000;  // 16 groups of 64: the last group is partial
  std::vector<float> a(n), b(n), out(n, -1.f);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 0.5f * float(i) + 1.f;
  }
  auto ba = Buffer::Create(cpu, n * 4), bb = Buffer::Create(cpu, n * 4), bo = Buffer::Create(cpu, n * 4);
  ASSERT_TRUE(ba->CopyIn(a.data(), n * 4).ok());
  ASSERT_TRUE(bb->CopyIn(b.data(), n * 4).ok());
  EXPECT_FALSE(bo->allocated());  // lazy: the launch allocates it
  LaunchDims dims;
  dims.num_groups = {16, 1, 1};
  dims.group_size = {64, 1, 1};
  std::vector<KernelArg> args = {KernelArg::Buf(bo.get()), KernelArg::Buf(ba.get()), KernelArg::Buf(bb.get()),
                                 KernelArg::I64(n)};
  ASSERT_TRUE(cpu.Launch(**program, dims, args).ok());
  EXPECT_TRUE(bo->allocated());
  ASSERT_TRUE(bo->CopyOut(out.data(), n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "at " << i;

  uint64_t ns = 0;
  ASSERT_TRUE(cpu.Launch(**program, dims, args, &ns).ok());
  EXPECT_GT(ns, 0u);
}

TEST_F(DeviceTest, ProgramCacheReturnsTheSameProgram) {
  Device& cpu = Cpu();
  auto p1 = cpu.GetProgram(VectorAdd());
  auto p2 = cpu.GetProgram(VectorAdd());
  ASSERT_TRUE(p1.ok() && p2.ok());
  EXPECT_EQ(p1->get(), p2->get());
  EXPECT_GE(cpu.program_cache().hits(), 1u);
}

TEST_F(DeviceTest, SyntaxErrorReturnsTheCompilerLog) {
  auto p = Cpu().GetProgram({"c", std::string(kCPrelude) + tg::testing::kSyntaxError, "broken"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  std::string msg(p.status().message());
  EXPECT_NE(msg.find("error"), std::string::npos) << msg;      // the compiler's diagnostic
  EXPECT_NE(msg.find("broken"), std::string::npos) << msg;     // ... mentions the function
  EXPECT_NE(msg.find("plugin CPU ("), std::string::npos) << msg;
}

TEST_F(DeviceTest, UnsupportedDialectListsTheAcceptedOnes) {
  auto p = Cpu().GetProgram({"cuda-c", "__global__ void k() {}", "k"});
  ASSERT_FALSE(p.ok());
  const std::string msg(p.status().message());
  EXPECT_NE(msg.find("it accepts: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("llvm-ir"), std::string::npos) << msg;
  EXPECT_NE(msg.find(" c"), std::string::npos) << msg;
}

TEST_F(DeviceTest, KernelFailureSurfacesAtSynchronize) {
  Device& cpu = Cpu();
  auto p = cpu.GetProgram({"c", std::string(kCPrelude) + tg::testing::kFailing, "fails"});
  ASSERT_TRUE(p.ok()) << p.status();
  LaunchDims dims;
  dims.num_groups = {8, 1, 1};
  ASSERT_TRUE(cpu.Launch(**p, dims, {}).ok());  // enqueued fine
  absl::Status s = cpu.Synchronize();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_NE(std::string(s.message()).find("returned 7"), std::string::npos) << s;
  EXPECT_TRUE(cpu.Synchronize().ok());  // reported once

  uint64_t ns = 0;  // the timed path waits, so the error comes back from Launch itself
  EXPECT_EQ(cpu.Launch(**p, dims, {}, &ns).code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(cpu.Synchronize().ok());
}

TEST_F(DeviceTest, BadLaunchArgumentsAreRejected) {
  Device& cpu = Cpu();
  auto p = cpu.GetProgram(VectorAdd());
  ASSERT_TRUE(p.ok());
  auto small = Buffer::Create(cpu, 16);
  std::vector<KernelArg> args = {KernelArg::Buf(small.get(), 32)};
  EXPECT_EQ(cpu.Launch(**p, LaunchDims{}, args).code(), absl::StatusCode::kInvalidArgument);
  std::vector<KernelArg> null_buf = {KernelArg::Buf(nullptr)};
  EXPECT_EQ(cpu.Launch(**p, LaunchDims{}, null_buf).code(), absl::StatusCode::kInvalidArgument);
  LaunchDims zero;
  zero.num_groups = {0, 1, 1};
  EXPECT_EQ(cpu.Launch(**p, zero, {}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DeviceTest, CopiesCheckSizes) {
  Device& cpu = Cpu();
  auto b = Buffer::Create(cpu, 8);
  char data[16] = {};
  EXPECT_EQ(b->CopyIn(data, 16).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(b->CopyOut(data, 16).code(), absl::StatusCode::kInvalidArgument);
  auto empty = Buffer::Create(cpu, 0);
  EXPECT_EQ(empty->EnsureAllocated().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tg::runtime
