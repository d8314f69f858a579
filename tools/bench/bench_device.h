// bench_device.h: the device a workload runs on. tg::nn layers create their parameters on the default
// device, so each workload runs with that default set to its own device; every timed region ends by
// waiting for the device.
#ifndef TG_TOOLS_BENCH_BENCH_DEVICE_H_
#define TG_TOOLS_BENCH_BENCH_DEVICE_H_

#include <optional>
#include <string>

namespace tg::bench {

// Makes |device| the default device (TG_DEVICE, which the registry reads whenever no device is named)
// until destroyed, then restores what was there.
class ScopedDefaultDevice {
 public:
  explicit ScopedDefaultDevice(const std::string& device);
  ~ScopedDefaultDevice();
  ScopedDefaultDevice(const ScopedDefaultDevice&) = delete;
  ScopedDefaultDevice& operator=(const ScopedDefaultDevice&) = delete;

 private:
  std::optional<std::string> saved_;
};

// Waits until everything enqueued on |device| has finished (runtime Device::Synchronize).
void SyncDevice(const std::string& device);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_BENCH_DEVICE_H_
