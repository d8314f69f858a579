// main() for test suites that run once per device: `--device=NAME` picks the device every
// tensor goes to (through TG_DEVICE). When that device does not exist here, no test runs and every
// case is written to the test XML as skipped with the registry's reason, so a machine without OpenCL
// still runs the CPU variant and counts the other as skipped. (GoogleTest 1.12 reports a GTEST_SKIP in
// a global environment's SetUp as every case passed, so the skip cannot be left to it.)
// `--cpu-dialect=llvm-ir` sets TG_CPU_DIALECT before any plugin loads, so the CPU plugin offers that
// dialect first; the suite fails (not skips) when the device then does not render it. `--tier=0|1|auto`
// sets TG_TIER (docs/tiers.md); with 0 the suite fails when the device has no first tier to run in.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "frontend/tg.h"
#include "runtime/device_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

// Why |device| (already in TG_DEVICE) cannot run the suite here, or nothing when it can.
std::optional<std::string> WhyUnavailable(const std::string& device) {
  try {
    std::string got = tg::default_device();
    if (got.rfind(device, 0) != 0) return "device " + device + " resolved to " + got;
  } catch (const tg::Error& e) {
    return "device " + device + " is not available here: " + e.what();
  }
  return std::nullopt;
}

std::string XmlEscaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;
      default: out += c;
    }
  }
  return out;
}

// Every registered case as skipped with |reason|, in GoogleTest's XML layout, to the file its --gtest_output
// (or Bazel's XML_OUTPUT_FILE) names.
void WriteAllSkipped(const std::string& reason) {
  std::string output = GTEST_FLAG_GET(output);
  if (output.rfind("xml:", 0) != 0 || output.size() <= 4 || output.back() == '/') return;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  std::ofstream xml(output.substr(4));
  const std::string message = XmlEscaped(reason);
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"" << unit.total_test_count()
      << "\" failures=\"0\" errors=\"0\" skipped=\"" << unit.total_test_count() << "\" name=\"AllTests\">\n";
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    xml << "  <testsuite name=\"" << XmlEscaped(suite.name()) << "\" tests=\"" << suite.total_test_count()
        << "\" skipped=\"" << suite.total_test_count() << "\" failures=\"0\" errors=\"0\">\n";
    for (int j = 0; j < suite.total_test_count(); ++j) {
      xml << "    <testcase name=\"" << XmlEscaped(suite.GetTestInfo(j)->name()) << "\" classname=\""
          << XmlEscaped(suite.name()) << "\" status=\"run\" result=\"skipped\"><skipped message=\"" << message
          << "\"/></testcase>\n";
    }
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
}

class DeviceEnvironment : public ::testing::Environment {
 public:
  DeviceEnvironment(std::string device, std::string dialect, std::string tier)
      : device_(std::move(device)), dialect_(std::move(dialect)), tier_(std::move(tier)) {}
  void SetUp() override {
    const auto& dialects = tg::runtime::DeviceRegistry::Global().GetDevice(device_).value()->info().source_dialects;
    if (tier_ == "0")
      ASSERT_THAT(dialects, ::testing::Contains("tg-uops")) << "--tier=0 on a device with no first tier";
    if (dialect_.empty()) return;
    ASSERT_FALSE(dialects.empty());
    ASSERT_EQ(dialects[0], dialect_) << "the device did not put --cpu-dialect first";
  }

 private:
  std::string device_, dialect_, tier_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  std::string device = "CPU", dialect, tier;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--device=", 9) == 0) device = argv[i] + 9;
    if (std::strncmp(argv[i], "--cpu-dialect=", 14) == 0) dialect = argv[i] + 14;
    if (std::strncmp(argv[i], "--tier=", 7) == 0) tier = argv[i] + 7;
  }
  setenv("TG_DEVICE", device.c_str(), 1);
  if (!dialect.empty()) setenv("TG_CPU_DIALECT", dialect.c_str(), 1);
  if (!tier.empty()) setenv("TG_TIER", tier.c_str(), 1);
  if (std::optional<std::string> why = WhyUnavailable(device)) {
    const int cases = ::testing::UnitTest::GetInstance()->total_test_count();
    std::printf("[  SKIPPED ] all %d tests: %s\n", cases, why->c_str());
    WriteAllSkipped(*why);
    return 0;
  }
  ::testing::AddGlobalTestEnvironment(new DeviceEnvironment(device, dialect, tier));
  return RUN_ALL_TESTS();
}
