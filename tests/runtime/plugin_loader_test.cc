// plugin_loader_test.cc: every loader error path reports its own message, naming plugin and path.
#include "runtime/plugin_loader.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::runtime {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Stub(const std::string& kind) { return "./tests/runtime/libstub_" + kind + ".so"; }

// Loads |path|, expects failure with |code|, and returns the message (also checked in the report).
std::string LoadError(const std::string& path, absl::StatusCode code) {
  PluginReport report;
  absl::StatusOr<LoadedPlugin> r = LoadPlugin(path, &report);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_EQ(report.status, "failed");
  EXPECT_EQ(report.reason, r.status().message());
  EXPECT_EQ(report.path, path);
  return std::string(r.status().message());
}

TEST(PluginLoaderTest, MissingFileGivesDlerror) {
  std::string path = "./tests/runtime/libstub_does_not_exist.so";
  EXPECT_THAT(LoadError(path, absl::StatusCode::kUnavailable),
              AllOf(HasSubstr("plugin " + path + ": dlopen failed: "), HasSubstr("No such file")));
}

TEST(PluginLoaderTest, NonElfFileGivesDlerror) {
  std::string path = Stub("not_elf");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kUnavailable),
              AllOf(HasSubstr("plugin " + path + ": dlopen failed: "), HasSubstr("invalid ELF header")));
}

TEST(PluginLoaderTest, MissingEntrySymbol) {
  std::string path = Stub("missing_entry");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kInvalidArgument),
              HasSubstr("plugin " + path + ": not a tinygrad-cc plugin: it does not export tg_plugin_get_api"));
}

TEST(PluginLoaderTest, NullTable) {
  std::string path = Stub("null_table");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kFailedPrecondition),
              HasSubstr("plugin " + path + ": tg_plugin_get_api(1, " + std::to_string(TG_ABI_MINOR) + ") returned NULL"));
}

TEST(PluginLoaderTest, ShortStructSize) {
  std::string path = Stub("short_struct");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kFailedPrecondition),
              AllOf(HasSubstr("plugin " + path + ": function table too short: struct_size 192 < 264")));
}

TEST(PluginLoaderTest, WrongMajor) {
  std::string path = Stub("wrong_major");
  PluginReport report;
  EXPECT_THAT(LoadError(path, absl::StatusCode::kFailedPrecondition),
              HasSubstr("plugin WRONGMAJOR (" + path + "): plugin ABI 2." + std::to_string(TG_ABI_MINOR) + " vs host 1." +
                        std::to_string(TG_ABI_MINOR) + ": install a plugin built for ABI 1.x"));
  ASSERT_FALSE(LoadPlugin(path, &report).ok());
  EXPECT_EQ(report.name, "WRONGMAJOR");  // the table was readable, so the report names it
  EXPECT_EQ(report.abi_major, 2u);
}

TEST(PluginLoaderTest, NullRequiredFunctionsAreAllNamed) {
  std::string path = Stub("null_required");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kFailedPrecondition),
              HasSubstr("plugin NULLREQUIRED (" + path + "): REQUIRED functions are NULL: program_compile, launch"));
}

TEST(PluginLoaderTest, FailingInitializeReportsCodeAndMessage) {
  std::string path = Stub("failing_init");
  EXPECT_THAT(LoadError(path, absl::StatusCode::kUnavailable),
              HasSubstr("plugin FAILINGINIT (" + path + "): initialize failed: UNAVAILABLE: stub: the driver exploded"));
}

TEST(PluginLoaderTest, ZeroDevicesIsNotAnErrorButHasAReason) {
  PluginReport report;
  absl::StatusOr<LoadedPlugin> r = LoadPlugin(Stub("zero_devices"), &report);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->device_count, 0u);
  EXPECT_EQ(r->unavailable_reason, "stub: no hardware in this test");
  EXPECT_EQ(report.status, "no devices");
  EXPECT_EQ(report.reason, "stub: no hardware in this test");
  EXPECT_EQ(report.version, "0.0.1-stub");
}

TEST(PluginLoaderTest, NullPluginLoadsWithZeroDevices) {
  PluginReport report;
  absl::StatusOr<LoadedPlugin> r = LoadPlugin("./plugins/null/libtg_null.so", &report);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->plugin->name(), "NULL");
  EXPECT_EQ(r->device_count, 0u);
  EXPECT_THAT(report.reason, HasSubstr("template"));
}

TEST(PluginLoaderTest, CpuPluginLoads) {
  PluginReport report;
  absl::StatusOr<LoadedPlugin> r = LoadPlugin("./plugins/cpu/libtg_cpu.so", &report);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->device_count, 1u);
  EXPECT_EQ(report.status, "ok");
  EXPECT_EQ(report.name, "CPU");
  EXPECT_EQ(report.abi_major, 1u);
}

// ---- Hostile tables through LoadPluginFromEntry (tests/fuzzers/hostile_plugin_fuzzer does the rest).

uint32_t g_fake_count = 1;
char g_unterminated[kMaxPluginString];  // filled with 'U' by the test: no NUL anywhere
tg_error* FakeOk() { return nullptr; }
tg_error* FakeInit(const tg_host_services*) { return nullptr; }
void FakeShutdown() {}
tg_error* FakeCount(uint32_t* n) {
  *n = g_fake_count;
  return nullptr;
}
tg_plugin_api g_fake;

const tg_plugin_api* FakeApi(uint32_t, uint32_t) { return &g_fake; }

// A table the loader accepts: every REQUIRED function present (they are never called past device_count).
void ResetFake() {
  g_fake = tg_plugin_api{};
  g_fake.struct_size = sizeof g_fake;
  g_fake.abi_major = TG_ABI_MAJOR;
  g_fake.plugin_name = "FAKE";
  g_fake.plugin_version = "1";
  void** fns = reinterpret_cast<void**>(&g_fake.error_code);  // error_code .. event_destroy: all pointers
  size_t slots = (offsetof(tg_plugin_api, event_destroy) - offsetof(tg_plugin_api, error_code)) / sizeof(void*) + 1;
  for (size_t i = 0; i < slots; ++i) fns[i] = reinterpret_cast<void*>(&FakeOk);
  g_fake.initialize = FakeInit;
  g_fake.shutdown = FakeShutdown;
  g_fake.device_count = FakeCount;
  g_fake.unavailable_reason = nullptr;
  g_fake_count = 1;
}

TEST(PluginLoaderTest, FakeTableLoads) {
  ResetFake();
  absl::StatusOr<LoadedPlugin> r = LoadPluginFromEntry("fake.so", FakeApi, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->device_count, 1u);
}

TEST(PluginLoaderTest, UnterminatedPluginNameIsRefused) {
  ResetFake();
  std::fill(std::begin(g_unterminated), std::end(g_unterminated), 'U');
  g_fake.plugin_name = g_unterminated;
  absl::StatusOr<LoadedPlugin> r = LoadPluginFromEntry("fake.so", FakeApi, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("plugin_name is not a NUL-terminated string"));
}

TEST(PluginLoaderTest, HugeDeviceCountIsRefused) {
  ResetFake();
  g_fake_count = 0xFFFFFFFFu;
  absl::StatusOr<LoadedPlugin> r = LoadPluginFromEntry("fake.so", FakeApi, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), AllOf(HasSubstr("says 4294967295 devices"), HasSubstr("at most 1024")));
}

TEST(PluginLoaderTest, PluginStringIsBounded) {
  EXPECT_EQ(PluginString(nullptr), "");
  EXPECT_EQ(PluginString("abc"), "abc");
  std::fill(std::begin(g_unterminated), std::end(g_unterminated), 'U');
  EXPECT_FALSE(PluginString(g_unterminated).has_value());
  EXPECT_FALSE(PluginString("abcd", 4).has_value());  // no NUL within the 4 bytes allowed
}

}  // namespace
}  // namespace tg::runtime
