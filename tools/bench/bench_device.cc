#include "tools/bench/bench_device.h"

#include <cstdlib>

#include "ir/error.h"
#include "runtime/device_registry.h"

namespace tg::bench {

ScopedDefaultDevice::ScopedDefaultDevice(const std::string& device) {
  if (const char* old = std::getenv("TG_DEVICE")) saved_ = old;
  setenv("TG_DEVICE", device.c_str(), 1);
}

ScopedDefaultDevice::~ScopedDefaultDevice() {
  if (saved_) setenv("TG_DEVICE", saved_->c_str(), 1);
  else unsetenv("TG_DEVICE");
}

void SyncDevice(const std::string& device) {
  absl::StatusOr<runtime::Device*> dev = runtime::DeviceRegistry::Global().GetDevice(device);
  if (!dev.ok()) throw Error(std::string(dev.status().message()));
  absl::Status st = (*dev)->Synchronize();
  if (!st.ok()) throw Error("synchronize " + device + ": " + std::string(st.message()));
}

}  // namespace tg::bench
