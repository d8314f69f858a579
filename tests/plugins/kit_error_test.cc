// kit_error_test.cc: the plugin kit's error object, its guards and the API-table builder
// (plugins/kit/plugin_error.h, api_table.h), through the table a host would see.
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "plugins/kit/api_table.h"
#include "plugins/kit/plugin_error.h"

const char tg_kit::kErrorPrefix[] = "kit-test: ";

namespace {

tg_error* ThrowsRuntimeError(uint32_t, tg_device**) { throw std::runtime_error("the driver said no"); }
tg_error* ThrowsBadAlloc(tg_device*, uint64_t, uint32_t, tg_buffer**) { throw std::bad_alloc(); }
tg_error* ThrowsInt(const tg_launch_args*) { throw 42; }
tg_error* Succeeds(tg_device*, tg_stream*) noexcept { return nullptr; }
int g_closed = 0;
void CloseThrows(tg_device*) {
  ++g_closed;
  throw std::logic_error("nobody hears this");
}
uint32_t TwoDevices() { return 2; }
uint32_t NoDevices(const char** reason) {
  if (reason != nullptr) *reason = "no such driver";
  return 0;
}
uint32_t DiscoveryThrows(const char**) { throw std::runtime_error("crashed"); }

// The code and message |e| carries through |api|, which then destroys it.
std::pair<tg_code, std::string> Take(const tg_plugin_api& api, tg_error* e) {
  std::pair<tg_code, std::string> out{api.error_code(e), api.error_message(e)};
  api.error_destroy(e);
  return out;
}

TEST(KitErrorTest, MakeErrorPrefixesThePluginsName) {
  tg_error* e = tg_kit::MakeError(TG_CODE_NOT_FOUND, "no device 7");
  EXPECT_EQ(tg_kit::ErrorCode(e), TG_CODE_NOT_FOUND);
  EXPECT_STREQ(tg_kit::ErrorMessage(e), "kit-test: no device 7");
  tg_kit::DestroyError(e);
  EXPECT_EQ(tg_kit::ErrorCode(nullptr), TG_CODE_OK);
  EXPECT_STREQ(tg_kit::ErrorMessage(nullptr), "");
}

// A compiler log longer than the host reads keeps its start and end, and says what it left out.
TEST(KitErrorTest, LongMessagesAreCutToWhatTheHostReads) {
  const tg_plugin_api api = tg_kit::BaseApi("KIT", "0");
  std::string log = "error: first\n" + std::string(20000, 'x') + "\nerror: last";
  auto [code, message] = Take(api, tg_kit::MakeError(TG_CODE_INTERNAL, log));
  EXPECT_EQ(code, TG_CODE_INTERNAL);
  EXPECT_LT(message.size(), TG_MAX_MESSAGE_BYTES);
  EXPECT_EQ(message.rfind("kit-test: error: first\n", 0), 0u) << message.substr(0, 80);
  EXPECT_EQ(message.substr(message.size() - 11), "error: last");
  size_t at = message.find("\n[... ");
  ASSERT_NE(at, std::string::npos);
  size_t left_out = std::stoull(message.substr(at + 6));
  std::string marker = "\n[... " + std::to_string(left_out) + " bytes left out ...]\n";
  EXPECT_EQ(message.substr(at, marker.size()), marker);
  EXPECT_EQ(message.size() - marker.size() + left_out, std::string("kit-test: ").size() + log.size());
  std::string exact(TG_MAX_MESSAGE_BYTES - 1 - std::string("kit-test: ").size(), 'y');
  EXPECT_EQ(Take(api, tg_kit::MakeError(TG_CODE_INTERNAL, exact)).second, "kit-test: " + exact);  // fits: whole
}

TEST(KitErrorTest, GuardTurnsExceptionsIntoStatusesWithTheirMessage) {
  const tg_plugin_api api = tg_kit::BaseApi("KIT", "1.2.3");
  auto [code, message] = Take(api, tg_kit::Entry<&ThrowsRuntimeError>(0, nullptr));
  EXPECT_EQ(code, TG_CODE_INTERNAL);
  EXPECT_EQ(message, "kit-test: internal error: the driver said no");

  std::tie(code, message) = Take(api, tg_kit::Entry<&ThrowsBadAlloc>(nullptr, 1, 0, nullptr));
  EXPECT_EQ(code, TG_CODE_RESOURCE_EXHAUSTED);
  EXPECT_EQ(message, "kit-test: out of host memory");

  std::tie(code, message) = Take(api, tg_kit::Entry<&ThrowsInt>(nullptr));
  EXPECT_EQ(code, TG_CODE_INTERNAL);
  EXPECT_EQ(message, "kit-test: internal error: unknown exception");

  EXPECT_EQ(tg_kit::Entry<&Succeeds>(nullptr, nullptr), nullptr);
}

TEST(KitErrorTest, VoidEntriesSwallowExceptions) {
  g_closed = 0;
  tg_kit::Entry<&CloseThrows>(nullptr);  // must return, not throw or abort
  EXPECT_EQ(g_closed, 1);
}

TEST(KitApiTableTest, BaseApiFillsVersionsNamesErrorsAndLifetime) {
  const tg_plugin_api api = tg_kit::BaseApi("KIT", "1.2.3");
  EXPECT_EQ(api.struct_size, sizeof(tg_plugin_api));
  EXPECT_EQ(api.abi_major, TG_ABI_MAJOR);
  EXPECT_EQ(api.abi_minor, TG_ABI_MINOR);
  EXPECT_STREQ(api.plugin_name, "KIT");
  EXPECT_STREQ(api.plugin_version, "1.2.3");
  ASSERT_NE(api.initialize, nullptr);
  ASSERT_NE(api.shutdown, nullptr);
  EXPECT_EQ(api.initialize(nullptr), nullptr);
  EXPECT_EQ(api.initialize(nullptr), nullptr);  // reference counted: twice, then two shutdowns
  api.shutdown();
  api.shutdown();
  EXPECT_EQ(api.device_open, nullptr);  // the plugin sets the rest
  EXPECT_EQ(api.stream_create, nullptr);
  EXPECT_EQ(api.extensions, nullptr);
}

TEST(KitApiTableTest, ApiForHostRefusesAnotherMajor) {
  const tg_plugin_api api = tg_kit::BaseApi("KIT", "1.2.3");
  EXPECT_EQ(tg_kit::ApiForHost(TG_ABI_MAJOR, &api), &api);
  EXPECT_EQ(tg_kit::ApiForHost(TG_ABI_MAJOR + 1, &api), nullptr);
}

TEST(KitApiTableTest, DeviceCountChecksItsOutPointerAndAsksTheCount) {
  const tg_plugin_api api = tg_kit::BaseApi("KIT", "1.2.3");
  uint32_t n = 99;
  EXPECT_EQ(tg_kit::DeviceCountEntry<&TwoDevices>(&n), nullptr);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(tg_kit::DeviceCountEntry<&NoDevices>(&n), nullptr);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(Take(api, tg_kit::DeviceCountEntry<&TwoDevices>(nullptr)).first, TG_CODE_INVALID_ARGUMENT);
  EXPECT_EQ(Take(api, tg_kit::DeviceCountEntry<&DiscoveryThrows>(&n)).first, TG_CODE_INTERNAL);
}

TEST(KitApiTableTest, UnavailableReasonComesFromTheCountAndSurvivesAThrow) {
  EXPECT_STREQ(tg_kit::UnavailableReasonEntry<&NoDevices>(), "no such driver");
  EXPECT_STREQ(tg_kit::UnavailableReasonEntry<&DiscoveryThrows>(), "device discovery failed");
}

}  // namespace
