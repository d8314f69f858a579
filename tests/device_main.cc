// main() for test suites that run once per device: `--device=NAME` picks the device every
// tensor goes to (through TG_DEVICE). When that device does not exist here, every test is
// skipped with the registry's reason, so a machine without OpenCL still runs the CPU variant.
// `--cpu-dialect=llvm-ir` sets TG_CPU_DIALECT before any plugin loads, so the CPU plugin offers that
// dialect first; the suite fails (not skips) when the device then does not render it.
#include <cstdlib>
#include <cstring>
#include <string>

#include "frontend/tg.h"
#include "runtime/device_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

class DeviceEnvironment : public ::testing::Environment {
 public:
  DeviceEnvironment(std::string device, std::string dialect)
      : device_(std::move(device)), dialect_(std::move(dialect)) {}
  void SetUp() override {
    try {
      std::string got = tg::default_device();
      if (got.rfind(device_, 0) != 0) GTEST_SKIP() << "device " << device_ << " resolved to " << got;
    } catch (const tg::Error& e) {
      GTEST_SKIP() << "device " << device_ << " is not available here: " << e.what();
    }
    if (dialect_.empty()) return;
    const auto& dialects = tg::runtime::DeviceRegistry::Global().GetDevice(device_).value()->info().source_dialects;
    ASSERT_FALSE(dialects.empty());
    ASSERT_EQ(dialects[0], dialect_) << "the device did not put --cpu-dialect first";
  }

 private:
  std::string device_, dialect_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  std::string device = "CPU", dialect;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--device=", 9) == 0) device = argv[i] + 9;
    if (std::strncmp(argv[i], "--cpu-dialect=", 14) == 0) dialect = argv[i] + 14;
  }
  setenv("TG_DEVICE", device.c_str(), 1);
  if (!dialect.empty()) setenv("TG_CPU_DIALECT", dialect.c_str(), 1);
  ::testing::AddGlobalTestEnvironment(new DeviceEnvironment(device, dialect));
  return RUN_ALL_TESTS();
}
