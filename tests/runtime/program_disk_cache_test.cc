// Device::GetProgram behind the sqlite disk cache: a second device (as in a second process) loads
// the binary instead of compiling; a binary the plugin refuses is dropped and recompiled.
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"
#include "runtime/disk_cache.h"
#include "tests/runtime/fresh_cpu_device.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

using tg::testing::kCPrelude;

class ProgramDiskCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { tg::testing::CpuRegistryWithTestCache(); }
  static std::unique_ptr<Device> FreshDevice() { return tg::testing::FreshCpuDevice(); }
};

// A source no other test compiles (the tag), so the first compile here is really the first.
KernelSource VectorAdd(const std::string& tag) {
  return {"c", std::string(kCPrelude) + "/* " + tag + " */\n" + tg::testing::kVectorAdd, "vadd"};
}

// The program works: out = a + b on 8 elements.
void ExpectAdds(Device& device, const Program& program) {
  std::vector<float> a(8, 1.5f), b(8, 2.0f), out(8, 0);
  auto bo = Buffer::Create(device, 32), ba = Buffer::Create(device, 32), bb = Buffer::Create(device, 32);
  ASSERT_TRUE(ba->CopyIn(a.data(), 32).ok());
  ASSERT_TRUE(bb->CopyIn(b.data(), 32).ok());
  LaunchDims dims;
  dims.num_groups = {2, 1, 1};
  dims.group_size = {4, 1, 1};
  KernelArg args[] = {KernelArg::Buf(bo.get()), KernelArg::Buf(ba.get()), KernelArg::Buf(bb.get()), KernelArg::I64(8)};
  ASSERT_TRUE(device.Launch(program, dims, args).ok());
  ASSERT_TRUE(bo->CopyOut(out.data(), 32).ok());
  for (float v : out) EXPECT_EQ(v, 3.5f);
}

TEST_F(ProgramDiskCacheTest, SecondDeviceLoadsTheBinaryInsteadOfCompiling) {
  ASSERT_NE(DiskCache::Global(), nullptr);
  KernelSource src = VectorAdd("second-device");
  auto first = FreshDevice();
  ASSERT_TRUE(first->GetProgram(src).ok());
  EXPECT_EQ(first->program_cache().counters().compiles, 1u);
  EXPECT_EQ(first->program_cache().counters().disk_stores, 1u);

  auto second = FreshDevice();
  absl::StatusOr<std::shared_ptr<Program>> program = second->GetProgram(src);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(second->program_cache().counters().compiles, 0u);
  EXPECT_EQ(second->program_cache().counters().disk_loads, 1u);
  ExpectAdds(*second, **program);
}

TEST_F(ProgramDiskCacheTest, RefusedBinaryIsDroppedRecompiledAndOverwritten) {
  KernelSource src = VectorAdd("refused");
  auto device = FreshDevice();
  std::string key = ProgramCache::DiskKey(ProgramCache::Key(device->info().plugin, device->info().fingerprint, src));
  // A row with a valid checksum but bytes the plugin cannot load (as a stale binary would be).
  DiskCache::Global()->PutProgram(key, {"elf-so", "not an elf at all"});
  absl::StatusOr<std::shared_ptr<Program>> program = device->GetProgram(src);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(device->program_cache().counters().disk_rejects, 1u);
  EXPECT_EQ(device->program_cache().counters().compiles, 1u);
  ExpectAdds(*device, **program);

  auto next = FreshDevice();  // the overwritten row now loads
  ASSERT_TRUE(next->GetProgram(src).ok());
  EXPECT_EQ(next->program_cache().counters().disk_loads, 1u);
  EXPECT_EQ(next->program_cache().counters().compiles, 0u);
}

}  // namespace
}  // namespace tg::runtime
