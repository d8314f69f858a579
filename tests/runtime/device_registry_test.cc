// device_registry_test.cc: device naming, TG_DEVICE, auto-selection and error listings.
#include "runtime/device_registry.h"

#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::runtime {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kCpu[] = "./plugins/cpu/libtg_cpu.so";
constexpr char kNull[] = "./plugins/null/libtg_null.so";
constexpr char kZeta[] = "./tests/runtime/libstub_fake_device.so";
constexpr char kBroken[] = "./tests/runtime/libstub_failing_init.so";

class DeviceRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TG_DEVICE"); }
  void TearDown() override { unsetenv("TG_DEVICE"); }
};

TEST_F(DeviceRegistryTest, NamesAreCaseInsensitiveAndOrdinalZeroIsTheBareName) {
  DeviceRegistry reg({kCpu, kNull});
  EXPECT_THAT(reg.DeviceNames(), ElementsAre("CPU"));
  for (const char* name : {"CPU", "cpu", "Cpu:0", " cpu "}) {
    absl::StatusOr<Device*> d = reg.GetDevice(name);
    ASSERT_TRUE(d.ok()) << name << ": " << d.status();
    EXPECT_EQ((*d)->name(), "CPU");
  }
  EXPECT_EQ(*reg.GetDevice("cpu"), *reg.GetDevice("CPU:0"));  // one Device object per ordinal
}

TEST_F(DeviceRegistryTest, UnknownDeviceListsWhatExists) {
  DeviceRegistry reg({kCpu, kNull});
  absl::StatusOr<Device*> d = reg.GetDevice("TPU");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(d.status().message()),
              AllOf(HasSubstr("unknown device 'TPU'"), HasSubstr("available devices: CPU"),
                    HasSubstr("NULL (./plugins/null/libtg_null.so): no devices")));
  EXPECT_EQ(reg.GetDevice("CPU:1").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(reg.GetDevice("CPU:x").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DeviceRegistryTest, DeviceOfAFailedPluginGivesItsReason) {
  DeviceRegistry reg({kCpu, kBroken, kNull});
  absl::StatusOr<Device*> d = reg.GetDevice("failinginit");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(d.status().message()),
              AllOf(HasSubstr("the driver exploded"), HasSubstr("available devices: CPU")));
  absl::StatusOr<Device*> n = reg.GetDevice("null");
  ASSERT_FALSE(n.ok());
  EXPECT_THAT(std::string(n.status().message()), HasSubstr("never has devices"));
}

TEST_F(DeviceRegistryTest, AutoSelectionPrefersThirdPartyOverCpu) {
  DeviceRegistry reg({kCpu, kZeta});
  absl::StatusOr<Device*> d = reg.DefaultDevice();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->name(), "ZETA");
  EXPECT_EQ((*d)->info().description, "Zeta accelerator");
}

TEST_F(DeviceRegistryTest, AutoSelectionFallsBackToCpu) {
  DeviceRegistry reg({kNull, kBroken, kCpu});
  absl::StatusOr<Device*> d = reg.DefaultDevice();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->name(), "CPU");
}

TEST_F(DeviceRegistryTest, TgDeviceSelectsAndNeverFallsBack) {
  DeviceRegistry reg({kCpu, kZeta, kNull});
  setenv("TG_DEVICE", "cpu", 1);
  absl::StatusOr<Device*> d = reg.DefaultDevice();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->name(), "CPU");

  setenv("TG_DEVICE", "NULL", 1);
  d = reg.DefaultDevice();
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()),
              AllOf(HasSubstr("TG_DEVICE=NULL"), HasSubstr("available devices: CPU, ZETA")));
}

TEST_F(DeviceRegistryTest, NoDevicesAtAll) {
  DeviceRegistry reg({kNull});
  absl::StatusOr<Device*> d = reg.DefaultDevice();
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(std::string(d.status().message()), HasSubstr("available devices: (none)"));
}

TEST_F(DeviceRegistryTest, DuplicatePluginNameIsReported) {
  DeviceRegistry reg({kCpu, "./plugins/cpu/libtg_cpu.so"});
  std::vector<PluginReport> reports = reg.Plugins();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].status, "ok");
  ASSERT_EQ(reports[0].devices.size(), 1u);
  EXPECT_EQ(reports[0].devices[0].name, "CPU");
  EXPECT_EQ(reports[1].status, "failed");
  EXPECT_THAT(reports[1].reason, HasSubstr("duplicate of ./plugins/cpu/libtg_cpu.so"));
  EXPECT_THAT(reg.DeviceNames(), ElementsAre("CPU"));
}

TEST_F(DeviceRegistryTest, GlobalRegistryFindsThePluginsInRunfiles) {
  DeviceRegistry& reg = DeviceRegistry::Global();
  std::vector<PluginReport> reports = reg.Plugins();
  std::vector<std::string> names;
  for (const PluginReport& r : reports) names.push_back(r.name);
  EXPECT_THAT(names, ::testing::IsSupersetOf({"CPU", "NULL"}));
  absl::StatusOr<Device*> cpu = reg.GetDevice("CPU");
  EXPECT_TRUE(cpu.ok()) << cpu.status();
}

}  // namespace
}  // namespace tg::runtime
