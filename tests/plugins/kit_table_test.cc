// kit_table_test.cc: a whole plugin table built the way the in-tree plugins build theirs
// (TG_KIT_SET_ENTRIES, TG_KIT_EXPORT_PLUGIN_API), seen through tg_plugin_get_api as a host sees it.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/api_table.h"

const char tg_kit::kErrorPrefix[] = "fake: ";

// A plugin whose every function either does nothing or throws, to see where each slot leads.
namespace fake {
uint32_t DeviceCount(const char** reason) {
  if (reason != nullptr) *reason = "fake has no devices";
  return 0;
}
tg_error* OpenDevice(uint32_t, tg_device**) { throw std::out_of_range("no device 0"); }
void CloseDevice(tg_device*) { throw std::runtime_error("ignored"); }
tg_error* GetDeviceProps(tg_device*, tg_device_props*) { return nullptr; }
tg_error* BufferAlloc(tg_device*, uint64_t, uint32_t, tg_buffer**) { return nullptr; }
void BufferFree(tg_buffer*) {}
tg_error* CopyH2D(tg_stream*, tg_buffer*, uint64_t, const void*, uint64_t, tg_event**) { return nullptr; }
tg_error* CopyD2H(tg_stream*, void*, tg_buffer*, uint64_t, uint64_t, tg_event**) { return nullptr; }
tg_error* CopyD2D(tg_stream*, tg_buffer*, uint64_t, tg_buffer*, uint64_t, uint64_t, tg_event**) {
  return nullptr;
}
tg_error* ProgramCompile(const tg_compile_args*, tg_program**) { throw std::runtime_error("no compiler"); }
tg_error* ProgramLoad(tg_device*, const char*, const void*, uint64_t, const char*, tg_program**) {
  return tg_kit::MakeError(TG_CODE_FAILED_PRECONDITION, "stale");
}
tg_error* ProgramBinary(tg_program*, const char**, const void**, uint64_t*) { return nullptr; }
void ProgramDestroy(tg_program*) {}
tg_error* Launch(const tg_launch_args*) { return nullptr; }
tg_error* StreamSync(tg_device*, tg_stream*) { return nullptr; }
tg_error* EventWait(tg_event*, uint64_t) { return nullptr; }
tg_error* EventQuery(tg_event*, uint32_t*) { return nullptr; }
void EventDestroy(tg_event*) {}
tg_error* EventTiming(tg_event*, uint64_t*, uint64_t*) { return nullptr; }

tg_plugin_api MakeApi() {
  tg_plugin_api api = tg_kit::BaseApi("FAKE", "9.9.9");
  TG_KIT_SET_ENTRIES(api, fake);
  return api;
}
}  // namespace fake

TG_KIT_EXPORT_PLUGIN_API(fake::MakeApi)

namespace {

TEST(KitTableTest, EveryRequiredSlotIsFilledAndOptionalStreamsStayNull) {
  const tg_plugin_api* api = tg_plugin_get_api(TG_ABI_MAJOR, TG_ABI_MINOR);
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api, tg_plugin_get_api(TG_ABI_MAJOR, 0));  // one table for the process
  EXPECT_EQ(tg_plugin_get_api(TG_ABI_MAJOR + 1, 0), nullptr);
  EXPECT_STREQ(api->plugin_name, "FAKE");
  const void* required[] = {
      reinterpret_cast<const void*>(api->error_code),     reinterpret_cast<const void*>(api->error_message),
      reinterpret_cast<const void*>(api->error_destroy),  reinterpret_cast<const void*>(api->initialize),
      reinterpret_cast<const void*>(api->shutdown),       reinterpret_cast<const void*>(api->device_count),
      reinterpret_cast<const void*>(api->device_open),    reinterpret_cast<const void*>(api->device_close),
      reinterpret_cast<const void*>(api->device_props),   reinterpret_cast<const void*>(api->buffer_alloc),
      reinterpret_cast<const void*>(api->buffer_free),    reinterpret_cast<const void*>(api->copy_h2d),
      reinterpret_cast<const void*>(api->copy_d2h),       reinterpret_cast<const void*>(api->program_compile),
      reinterpret_cast<const void*>(api->program_destroy), reinterpret_cast<const void*>(api->launch),
      reinterpret_cast<const void*>(api->stream_sync),    reinterpret_cast<const void*>(api->event_wait),
      reinterpret_cast<const void*>(api->event_query),    reinterpret_cast<const void*>(api->event_destroy),
  };
  for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i) EXPECT_NE(required[i], nullptr) << i;
  EXPECT_NE(api->copy_d2d, nullptr);
  EXPECT_NE(api->program_load, nullptr);
  EXPECT_NE(api->program_binary, nullptr);
  EXPECT_NE(api->event_timing_ns, nullptr);
  EXPECT_EQ(api->stream_create, nullptr);
  EXPECT_EQ(api->stream_destroy, nullptr);
  EXPECT_EQ(api->stream_wait_event, nullptr);
}

TEST(KitTableTest, SlotsLeadToTheirFunctionsBehindTheGuard) {
  const tg_plugin_api* api = tg_plugin_get_api(TG_ABI_MAJOR, TG_ABI_MINOR);
  ASSERT_NE(api, nullptr);
  uint32_t n = 7;
  EXPECT_EQ(api->device_count(&n), nullptr);
  EXPECT_EQ(n, 0u);
  ASSERT_NE(api->unavailable_reason, nullptr);
  EXPECT_STREQ(api->unavailable_reason(), "fake has no devices");

  tg_error* e = api->device_open(0, nullptr);
  EXPECT_EQ(api->error_code(e), TG_CODE_INTERNAL);
  EXPECT_STREQ(api->error_message(e), "fake: internal error: no device 0");
  api->error_destroy(e);

  e = api->program_load(nullptr, "x", nullptr, 0, "k", nullptr);
  EXPECT_EQ(api->error_code(e), TG_CODE_FAILED_PRECONDITION);  // a returned error passes through
  EXPECT_STREQ(api->error_message(e), "fake: stale");
  api->error_destroy(e);

  api->device_close(nullptr);  // throws inside; the host sees a plain return
}

}  // namespace
