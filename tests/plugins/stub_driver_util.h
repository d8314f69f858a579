// stub_driver_util.h: a GPU plugin loaded with its driver search confined to a directory of stub
// drivers (dlopen_jail.h), for the stub driver tests in this directory.
#ifndef TG_TESTS_PLUGINS_STUB_DRIVER_UTIL_H_
#define TG_TESTS_PLUGINS_STUB_DRIVER_UTIL_H_

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "plugins/abi/tg_plugin.h"
#include "tests/plugins/dlopen_jail.h"
#include "tests/plugins/plugin_test_util.h"

namespace tg::testing {

constexpr char kCudaPlugin[] = "./plugins/cuda/libtg_cuda.so";
constexpr char kHipPlugin[] = "./plugins/hip/libtg_hip.so";

struct StubLoaded {
  const tg_plugin_api* api = nullptr;
  uint32_t count = 0;
  std::string reason;  // unavailable_reason, "" when there are devices
};

// Loads the plugin at |path| and counts its devices, with every bare library name the process
// dlopens looked up in |driver_dir| alone. A plugin searches for its driver once per process, so
// one test binary uses one directory.
inline StubLoaded LoadWithDrivers(const char* path, const char* driver_dir) {
  tg_dlopen_jail(driver_dir);
  StubLoaded l;
  l.api = LoadPluginApi(path);
  if (l.api == nullptr) return l;
  ErrorChecker(l.api).Ok(l.api->initialize(nullptr));
  ErrorChecker(l.api).Ok(l.api->device_count(&l.count));
  const char* r = l.api->unavailable_reason();
  l.reason = r != nullptr ? r : "";
  return l;
}

// Device 0's properties (its strings live until it is closed, so it stays open in *out_device).
inline tg_device_props OpenAndDescribe(const tg_plugin_api* api, tg_device** out_device) {
  tg_device_props p{};
  p.struct_size = sizeof p;
  *out_device = nullptr;
  ErrorChecker(api).Ok(api->device_open(0, out_device));
  if (*out_device != nullptr) ErrorChecker(api).Ok(api->device_props(*out_device, &p));
  return p;
}

// The one device a plugin loaded by LoadWithDrivers finds, open, with its properties. A test failure,
// and a null device, when the plugin did not load or finds another number of devices.
struct StubDevice {
  const tg_plugin_api* api = nullptr;
  tg_device* device = nullptr;
  tg_device_props props{};
  ~StubDevice() {
    if (device != nullptr) api->device_close(device);
  }
};
inline void OpenTheOneDevice(const StubLoaded& l, StubDevice* d) {
  d->api = l.api;
  if (l.api == nullptr) return ADD_FAILURE() << "the plugin did not load", void();
  if (l.count != 1) return ADD_FAILURE() << "expected one device, found " << l.count << ": " << l.reason, void();
  d->props = OpenAndDescribe(l.api, &d->device);
  if (d->device == nullptr) ADD_FAILURE() << "device_open failed";
}

}  // namespace tg::testing

#endif  // TG_TESTS_PLUGINS_STUB_DRIVER_UTIL_H_
