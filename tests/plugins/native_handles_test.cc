// native_handles_test.cc: the "tg.native_handles" extension (tg_plugin.h) through the raw ABI table.
// CPU: a buffer's native address is host memory holding exactly what copy_h2d wrote, its kind "host",
// and devices have no native stream. CUDA: the extension is in the chain next to "tg.compile_only"
// (its handles need a GPU; this machine class may have none).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/plugin_test_util.h"

namespace {

using tg::testing::ErrorChecker;
using tg::testing::FindExtension;
using tg::testing::LoadPluginApi;

const tg_native_handles_ext* NativeHandles(const tg_plugin_api* api) {
  const tg_ext* ext = FindExtension(api, TG_NATIVE_HANDLES_NAME);
  if (ext == nullptr) return nullptr;
  EXPECT_EQ(ext->version, TG_NATIVE_HANDLES_VERSION);
  EXPECT_GE(ext->struct_size, TG_SIZE_TO(tg_native_handles_ext, device_bind_thread));
  return reinterpret_cast<const tg_native_handles_ext*>(ext);
}

TEST(NativeHandles, CpuBufferAddressHoldsTheBytesCopiedIn) {
  const tg_plugin_api* api = LoadPluginApi("./plugins/cpu/libtg_cpu.so");
  ASSERT_NE(api, nullptr);
  const tg_native_handles_ext* ext = NativeHandles(api);
  ASSERT_NE(ext, nullptr) << "the CPU plugin has no " << TG_NATIVE_HANDLES_NAME;
  ErrorChecker check(api);
  check.Ok(api->initialize(nullptr));
  tg_device* dev = nullptr;
  check.Ok(api->device_open(0, &dev));
  ASSERT_NE(dev, nullptr);

  std::vector<int32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(i * 7 - 300);
  tg_buffer* buf = nullptr;
  check.Ok(api->buffer_alloc(dev, values.size() * sizeof(int32_t), 0, &buf));
  check.Ok(api->copy_h2d(nullptr, buf, 0, values.data(), values.size() * sizeof(int32_t), nullptr));
  check.Ok(api->stream_sync(dev, nullptr));

  uint64_t address = 0;
  const char* kind = nullptr;
  check.Ok(ext->buffer_native(buf, &address, &kind));
  ASSERT_NE(address, 0u);
  EXPECT_STREQ(kind, "host");
  EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(address), values.data(), values.size() * sizeof(int32_t)), 0);

  // Written natively, read back through the ABI: the same memory, not a copy.
  reinterpret_cast<int32_t*>(address)[5] = 424242;
  int32_t back = 0;
  check.Ok(api->copy_d2h(nullptr, &back, buf, 5 * sizeof(int32_t), sizeof back, nullptr));
  EXPECT_EQ(back, 424242);

  const char* device_kind = nullptr;
  void* stream = reinterpret_cast<void*>(1);
  void* context = reinterpret_cast<void*>(1);
  check.Ok(ext->device_native(dev, &device_kind, &stream, &context));
  EXPECT_STREQ(device_kind, "host");
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(context, nullptr);
  check.Ok(ext->device_bind_thread(dev));

  check.Err(ext->buffer_native(nullptr, &address, &kind), TG_CODE_INVALID_ARGUMENT);
  check.Err(ext->device_native(nullptr, &device_kind, &stream, &context), TG_CODE_INVALID_ARGUMENT);
  check.Err(ext->device_bind_thread(nullptr), TG_CODE_INVALID_ARGUMENT);
  api->buffer_free(buf);
  api->device_close(dev);
  api->shutdown();
}

TEST(NativeHandles, CudaChainsItBeforeCompileOnly) {
  const tg_plugin_api* api = LoadPluginApi("./plugins/cuda/libtg_cuda.so");
  ASSERT_NE(api, nullptr);
  const tg_native_handles_ext* ext = NativeHandles(api);
  ASSERT_NE(ext, nullptr) << "the CUDA plugin has no " << TG_NATIVE_HANDLES_NAME;
  EXPECT_NE(ext->buffer_native, nullptr);
  EXPECT_NE(ext->device_native, nullptr);
  EXPECT_NE(ext->device_bind_thread, nullptr);
  EXPECT_NE(FindExtension(api, "tg.compile_only"), nullptr) << "the chain lost tg.compile_only";
  ErrorChecker check(api);
  uint64_t address = 0;
  const char* kind = nullptr;
  check.Err(ext->buffer_native(nullptr, &address, &kind), TG_CODE_INVALID_ARGUMENT);
}

}  // namespace
