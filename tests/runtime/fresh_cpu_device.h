// fresh_cpu_device.h: CPU devices that start as in a new process, for the runtime's program-cache tests.
#ifndef TG_TESTS_RUNTIME_FRESH_CPU_DEVICE_H_
#define TG_TESTS_RUNTIME_FRESH_CPU_DEVICE_H_

#include <cstdlib>
#include <memory>

#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/device_registry.h"

namespace tg::testing {

// The CPU plugin's registry, made on first use with the disk cache in the test's own directory
// (TEST_TMPDIR); call it before DiskCache::Global() is first used (in SetUpTestSuite).
inline runtime::DeviceRegistry& CpuRegistryWithTestCache() {
  static runtime::DeviceRegistry* registry = [] {
    if (const char* tmp = std::getenv("TEST_TMPDIR")) setenv("TG_CACHE_DIR", tmp, 1);
    return new runtime::DeviceRegistry({"./plugins/cpu/libtg_cpu.so"});
  }();
  return *registry;
}

// A CPU device of its own, so its in-memory program cache starts empty while the disk cache is shared.
inline std::unique_ptr<runtime::Device> FreshCpuDevice() {
  absl::StatusOr<runtime::Device*> cpu = CpuRegistryWithTestCache().GetDevice("CPU");
  EXPECT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<std::unique_ptr<runtime::Device>> d = runtime::Device::Open((*cpu)->plugin(), 0);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

}  // namespace tg::testing

#endif  // TG_TESTS_RUNTIME_FRESH_CPU_DEVICE_H_
