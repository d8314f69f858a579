#include "compiler/errors.h"

#include "ir/error.h"
#include "runtime/device_registry.h"

namespace tg::compiler {

void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw Error(std::string(status.message()));
}

runtime::Device& DeviceNamed(const std::string& name) {
  absl::StatusOr<runtime::Device*> device = runtime::DeviceRegistry::Global().GetDevice(name);
  ThrowIfError(device.status());
  return **device;
}

}  // namespace tg::compiler
