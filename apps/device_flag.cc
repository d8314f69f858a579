// --device (apps/device_flag.h). Through TG_DEVICE because the registry reads it whenever no device
// is named; creating a tensor checks the name and fails with the registry's list of devices.
#include "apps/device_flag.h"

#include <cstdlib>

#include "frontend/tg.h"

namespace tg::apps {

std::string UseDevice(const std::string& name) {
  if (!name.empty()) setenv("TG_DEVICE", name.c_str(), 1);
  return Tensor::zeros({1}).device();
}

}  // namespace tg::apps
