// native_handles_test.cc: runtime::FindExtension and the typed tg.native_handles calls on the CPU
// plugin through runtime::Device and Buffer (what tg::dist's NCCL path uses).
#include "runtime/native_handles.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"
#include "runtime/plugin_extension.h"

namespace tg::runtime {
namespace {

Device& Cpu() {
  static DeviceRegistry* registry = new DeviceRegistry({"./plugins/cpu/libtg_cpu.so"});
  absl::StatusOr<Device*> d = registry->GetDevice("CPU");
  EXPECT_TRUE(d.ok()) << d.status();
  return **d;
}

TEST(NativeHandles, FindExtensionMatchesNameVersionAndSize) {
  const Plugin& plugin = Cpu().plugin();
  const uint64_t size = TG_SIZE_TO(tg_native_handles_ext, device_bind_thread);
  EXPECT_NE(FindExtension(plugin, TG_NATIVE_HANDLES_NAME, 1, size), nullptr);
  EXPECT_EQ(FindExtension(plugin, TG_NATIVE_HANDLES_NAME, 2, size), nullptr) << "no version 2 yet";
  EXPECT_EQ(FindExtension(plugin, TG_NATIVE_HANDLES_NAME, 1, size + 8), nullptr) << "fields it does not have";
  EXPECT_EQ(FindExtension(plugin, "acme.nothing", 1, 0), nullptr);
  EXPECT_TRUE(HasNativeHandles(Cpu()));
}

TEST(NativeHandles, CpuBufferIsHostMemoryHoldingItsBytes) {
  std::vector<float> values = {1.5f, -2.0f, 3.25f, 4.0f};
  std::shared_ptr<Buffer> buffer = Buffer::Create(Cpu(), values.size() * sizeof(float));
  ASSERT_TRUE(buffer->CopyIn(values.data(), values.size() * sizeof(float)).ok());
  ASSERT_TRUE(Cpu().Synchronize().ok());
  absl::StatusOr<NativeBuffer> native = NativeBufferOf(*buffer);
  ASSERT_TRUE(native.ok()) << native.status();
  EXPECT_EQ(native->memory_kind, "host");
  ASSERT_NE(native->address, 0u);
  EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(native->address), values.data(), values.size() * sizeof(float)), 0);

  absl::StatusOr<NativeDevice> device = NativeDeviceOf(Cpu());
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ(device->memory_kind, "host");
  EXPECT_EQ(device->stream, nullptr);
  EXPECT_TRUE(BindThreadTo(Cpu()).ok());
}

TEST(NativeHandles, ABufferIsAllocatedBeforeItsAddressIsTaken) {
  std::shared_ptr<Buffer> buffer = Buffer::Create(Cpu(), 64);
  EXPECT_FALSE(buffer->allocated());
  absl::StatusOr<NativeBuffer> native = NativeBufferOf(*buffer);
  ASSERT_TRUE(native.ok()) << native.status();
  EXPECT_TRUE(buffer->allocated());
  EXPECT_NE(native->address, 0u);
}

}  // namespace
}  // namespace tg::runtime
