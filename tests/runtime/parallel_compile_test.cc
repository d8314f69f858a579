// Device::GetProgramAsync: the kernels of one schedule compile side by side on the task pool. They
// must come out exactly as serial compiles do (same binaries, same results), one compile per source
// however many ask, and a failed compile must reach its waiters as an error. Runs for the "c" and
// "llvm-ir" dialects (filters in BUILD.bazel); the "c" target also runs under --config=tsan.
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "runtime/task_pool.h"
#include "tests/runtime/fresh_cpu_device.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

constexpr int kKernels = 6;

class ParallelCompileTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { tg::testing::CpuRegistryWithTestCache(); }
  static std::unique_ptr<Device> FreshDevice() { return tg::testing::FreshCpuDevice(); }
  // out = a + b * k in the dialect under test; |tag| keeps sources apart from other tests' (and so
  // out of the disk cache rows they wrote).
  KernelSource Kernel(int k, const std::string& tag) const {
    std::string scale = std::to_string(k) + ".0";
    if (GetParam() == "c") {
      std::string body = tg::testing::kVectorAdd;
      body.replace(body.find("a[i] + b[i]"), 11, "a[i] + b[i] * " + scale + "f");
      return {"c", std::string(tg::testing::kCPrelude) + "/* " + tag + " */\n" + body, "vadd"};
    }
    std::string body = tg::testing::kLlvmVectorAdd;
    body.replace(body.find("%s = fadd float %va, %vb"), 24,
                 "%vbk = fmul float %vb, " + scale + "\n  %s = fadd float %va, %vbk");
    return {"llvm-ir", "; " + tag + "\n" + body, "vadd"};
  }
};

std::string BinaryOf(const Program& program) {
  const tg_plugin_api& api = program.device().plugin().api();
  const char* format = nullptr;
  const void* bytes = nullptr;
  uint64_t len = 0;
  tg_error* e = api.program_binary(program.handle(), &format, &bytes, &len);
  if (e != nullptr) {
    ADD_FAILURE() << api.error_message(e);
    api.error_destroy(e);
    return "";
  }
  return std::string(format) + ":" + std::string(static_cast<const char*>(bytes), len);
}

// out[i] = a[i] + b[i] * k, checked on 100 elements.
void ExpectComputes(Device& device, const Program& program, int k) {
  const int n = 100;
  std::vector<float> a(n), b(n), out(n, -1.f);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(3 - i);
  auto bo = Buffer::Create(device, n * 4), ba = Buffer::Create(device, n * 4), bb = Buffer::Create(device, n * 4);
  ASSERT_TRUE(ba->CopyIn(a.data(), n * 4).ok());
  ASSERT_TRUE(bb->CopyIn(b.data(), n * 4).ok());
  LaunchDims dims;
  dims.num_groups = {4, 1, 1};
  dims.group_size = {32, 1, 1};
  KernelArg args[] = {KernelArg::Buf(bo.get()), KernelArg::Buf(ba.get()), KernelArg::Buf(bb.get()), KernelArg::I64(n)};
  ASSERT_TRUE(device.Launch(program, dims, args).ok());
  ASSERT_TRUE(bo->CopyOut(out.data(), n * 4).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i] * float(k)) << "k=" << k << " i=" << i;
}

TEST_P(ParallelCompileTest, ConcurrentCompilesGiveTheSerialBinariesAndResults) {
  ASSERT_GE(TaskPool::Compiles().threads(), 1u);
  std::vector<KernelSource> sources;
  for (int k = 1; k <= kKernels; ++k) sources.push_back(Kernel(k, "same-binaries"));
  auto serial = FreshDevice();
  std::vector<std::string> expected;
  for (const KernelSource& src : sources) {
    absl::StatusOr<std::shared_ptr<Program>> p = serial->CompileUncached(src);  // no cache rows written
    ASSERT_TRUE(p.ok()) << p.status();
    expected.push_back(BinaryOf(**p));
  }

  auto parallel = FreshDevice();
  std::vector<ProgramCache::Pending> pending;
  for (const KernelSource& src : sources) pending.push_back(parallel->GetProgramAsync(src));
  for (int i = 0; i < kKernels; ++i) {
    const ProgramCache::Result& p = pending[i].get();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(BinaryOf(**p), expected[i]) << "kernel " << i + 1;
    ExpectComputes(*parallel, **p, i + 1);
  }
  EXPECT_EQ(parallel->program_cache().counters().compiles, uint64_t{kKernels});
}

TEST_P(ParallelCompileTest, OneSourceAskedForManyTimesCompilesOnce) {
  auto device = FreshDevice();
  KernelSource src = Kernel(7, "asked-many-times");
  std::vector<ProgramCache::Pending> pending(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < pending.size(); ++t)
    threads.emplace_back([&, t] { pending[t] = device->GetProgramAsync(src); });
  for (std::thread& t : threads) t.join();
  absl::StatusOr<std::shared_ptr<Program>> sync = device->GetProgram(src);
  ASSERT_TRUE(sync.ok()) << sync.status();
  for (const ProgramCache::Pending& p : pending) {
    ASSERT_TRUE(p.get().ok()) << p.get().status();
    EXPECT_EQ(p.get()->get(), sync->get());
  }
  EXPECT_EQ(device->program_cache().counters().compiles + device->program_cache().counters().disk_loads, 1u);
  ExpectComputes(*device, **sync, 7);
}

TEST_P(ParallelCompileTest, AFailedCompileReachesItsWaitersAndIsRetried) {
  auto device = FreshDevice();
  KernelSource broken = GetParam() == "c"
                            ? KernelSource{"c", std::string(tg::testing::kCPrelude) + tg::testing::kSyntaxError, "broken"}
                            : KernelSource{"llvm-ir", "define i32 @broken( this is not IR", "broken"};
  std::vector<ProgramCache::Pending> good;
  for (int k = 1; k <= 3; ++k) good.push_back(device->GetProgramAsync(Kernel(k, "beside-a-failure")));
  ProgramCache::Pending first = device->GetProgramAsync(broken), second = device->GetProgramAsync(broken);
  ASSERT_FALSE(first.get().ok());
  EXPECT_EQ(first.get().status().code(), absl::StatusCode::kInvalidArgument) << first.get().status();
  EXPECT_NE(first.get().status().message().find("broken"), std::string::npos) << first.get().status();
  EXPECT_FALSE(second.get().ok());
  for (int k = 1; k <= 3; ++k) {
    ASSERT_TRUE(good[k - 1].get().ok()) << good[k - 1].get().status();
    ExpectComputes(*device, **good[k - 1].get(), k);
  }
  // A failure is not cached: asking again compiles again (and fails again).
  uint64_t compiles = device->program_cache().counters().compiles;
  EXPECT_FALSE(device->GetProgramAsync(broken).get().ok());
  EXPECT_EQ(device->program_cache().counters().compiles, compiles + 1);
}

TEST_P(ParallelCompileTest, AnUnacceptedDialectIsRefusedAtOnce) {
  auto device = FreshDevice();
  ProgramCache::Pending p = device->GetProgramAsync({"cuda-c", "x", "x"});
  ASSERT_FALSE(p.get().ok());
  EXPECT_EQ(p.get().status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_P(ParallelCompileTest, ADeviceDestroyedWithCompilesInFlightWaitsForThem) {
  std::vector<ProgramCache::Pending> pending;
  {
    auto device = FreshDevice();
    for (int k = 1; k <= kKernels; ++k) pending.push_back(device->GetProgramAsync(Kernel(k, "in-flight-at-close")));
    for (const ProgramCache::Pending& p : pending) p.wait();  // programs must die before their device
    for (const ProgramCache::Pending& p : pending) ASSERT_TRUE(p.get().ok()) << p.get().status();
    pending.clear();
    for (int k = 1; k <= kKernels; ++k) device->GetProgramAsync(Kernel(k + 10, "in-flight-at-close"));
  }  // ~Device waits for the second batch; the test passes when nothing crashes (or races, under TSan)
}

INSTANTIATE_TEST_SUITE_P(Dialects, ParallelCompileTest, ::testing::Values("c", "llvm-ir"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "c" ? std::string("c") : std::string("llvm_ir");
                         });

}  // namespace
}  // namespace tg::runtime
