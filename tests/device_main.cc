// main() for test suites that run once per device: `--device=NAME` picks the device every
// tensor goes to (through TG_DEVICE). When that device does not exist here, every test is
// skipped with the registry's reason, so a machine without OpenCL still runs the CPU variant.
#include <cstdlib>
#include <cstring>
#include <string>

#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

class DeviceEnvironment : public ::testing::Environment {
 public:
  explicit DeviceEnvironment(std::string device) : device_(std::move(device)) {}
  void SetUp() override {
    try {
      std::string got = tg::default_device();
      if (got.rfind(device_, 0) != 0) GTEST_SKIP() << "device " << device_ << " resolved to " << got;
    } catch (const tg::Error& e) {
      GTEST_SKIP() << "device " << device_ << " is not available here: " << e.what();
    }
  }

 private:
  std::string device_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  std::string device = "CPU";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--device=", 9) == 0) device = argv[i] + 9;
  setenv("TG_DEVICE", device.c_str(), 1);
  ::testing::AddGlobalTestEnvironment(new DeviceEnvironment(device));
  return RUN_ALL_TESTS();
}
