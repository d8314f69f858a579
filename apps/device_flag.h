// The apps' --device flag: makes the named device the default one, so layers, optimizers and batches
// all land on it without passing a device to each (tinygrad's Device.DEFAULT; README.md).
#ifndef TG_APPS_DEVICE_FLAG_H_
#define TG_APPS_DEVICE_FLAG_H_

#include <string>

namespace tg::apps {

// Sets TG_DEVICE to |name| when it is not empty, then returns the canonical name of the default device
// ("CPU", "OPENCL:1"). tg::Error listing the available devices when |name| is unknown.
std::string UseDevice(const std::string& name);

}  // namespace tg::apps

#endif  // TG_APPS_DEVICE_FLAG_H_
