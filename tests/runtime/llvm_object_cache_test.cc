// The CPU plugin's llvm-ir programs behind the sqlite disk cache: their object code is stored like
// gcc's shared objects, a second device (as a new process would) links the cached object and compiles
// nothing, and a damaged row is refused and recompiled, never linked.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "runtime/disk_cache.h"
#include "tests/runtime/fresh_cpu_device.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

class LlvmObjectCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { tg::testing::CpuRegistryWithTestCache(); }
  static std::unique_ptr<Device> FreshDevice() { return tg::testing::FreshCpuDevice(); }
  static std::string DiskKey(const Device& device, const KernelSource& src) {
    return ProgramCache::DiskKey(ProgramCache::Key(device.info().plugin, device.info().fingerprint, src));
  }
};

KernelSource VectorAdd(const std::string& tag) { return {"llvm-ir", "; " + tag + "\n" + tg::testing::kLlvmVectorAdd, "vadd"}; }

void ExpectAdds(Device& device, const Program& program) {
  std::vector<float> a(70, 1.5f), b(70, 2.0f), out(70, 0);
  auto bo = Buffer::Create(device, 280), ba = Buffer::Create(device, 280), bb = Buffer::Create(device, 280);
  ASSERT_TRUE(ba->CopyIn(a.data(), 280).ok());
  ASSERT_TRUE(bb->CopyIn(b.data(), 280).ok());
  LaunchDims dims;
  dims.num_groups = {3, 1, 1};
  dims.group_size = {32, 1, 1};
  KernelArg args[] = {KernelArg::Buf(bo.get()), KernelArg::Buf(ba.get()), KernelArg::Buf(bb.get()), KernelArg::I64(70)};
  ASSERT_TRUE(device.Launch(program, dims, args).ok());
  ASSERT_TRUE(bo->CopyOut(out.data(), 280).ok());
  for (float v : out) ASSERT_EQ(v, 3.5f);
}

TEST_F(LlvmObjectCacheTest, ObjectIsStoredAndASecondDeviceLinksItWithoutCompiling) {
  ASSERT_NE(DiskCache::Global(), nullptr);
  KernelSource src = VectorAdd("second-device");
  auto first = FreshDevice();
  ASSERT_TRUE(first->GetProgram(src).ok());
  EXPECT_EQ(first->program_cache().counters().compiles, 1u);
  EXPECT_EQ(first->program_cache().counters().disk_stores, 1u);
  std::optional<CachedBinary> row = DiskCache::Global()->GetProgram(DiskKey(*first, src));
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->format, "llvm-obj");

  auto second = FreshDevice();
  absl::StatusOr<std::shared_ptr<Program>> program = second->GetProgram(src);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(second->program_cache().counters().compiles, 0u);
  EXPECT_EQ(second->program_cache().counters().disk_loads, 1u);
  ExpectAdds(*second, **program);
  ExpectAdds(*first, **first->GetProgram(src));  // the two share one linked copy; both still run
}

TEST_F(LlvmObjectCacheTest, DamagedRowsAreRecompiledNotLinked) {
  KernelSource src = VectorAdd("damaged");
  auto writer = FreshDevice();
  ASSERT_TRUE(writer->GetProgram(src).ok());
  std::string key = DiskKey(*writer, src);
  std::optional<CachedBinary> good = DiskCache::Global()->GetProgram(key);
  ASSERT_TRUE(good.has_value());
  std::vector<std::string> damaged = {good->bytes.substr(0, good->bytes.size() / 2), good->bytes};
  damaged[1][damaged[1].size() * 3 / 4] ^= 0x10;  // inside the object code
  for (const std::string& bytes : damaged) {
    DiskCache::Global()->PutProgram(key, {"llvm-obj", bytes});
    auto device = FreshDevice();
    absl::StatusOr<std::shared_ptr<Program>> program = device->GetProgram(src);
    ASSERT_TRUE(program.ok()) << program.status();
    EXPECT_EQ(device->program_cache().counters().disk_rejects, 1u);
    EXPECT_EQ(device->program_cache().counters().compiles, 1u);
    ExpectAdds(*device, **program);
  }
  auto next = FreshDevice();  // the recompile overwrote the row: it loads again
  ASSERT_TRUE(next->GetProgram(src).ok());
  EXPECT_EQ(next->program_cache().counters().disk_loads, 1u);
  EXPECT_EQ(next->program_cache().counters().compiles, 0u);
}

}  // namespace
}  // namespace tg::runtime
