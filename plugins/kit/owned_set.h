// SPDX-License-Identifier: Apache-2.0
// owned_set.h: the handles a device has handed out and the host has not yet freed. device_close
// frees what the device still owns (ABI), and the runtime keeps device memory and code objects
// until the process ends unless someone frees them, so the device remembers its live buffers and
// programs. Thread-safe: the host allocates, frees and compiles from any thread.
#ifndef TG_PLUGINS_KIT_OWNED_SET_H_
#define TG_PLUGINS_KIT_OWNED_SET_H_

#include <mutex>
#include <unordered_set>
#include <vector>

namespace tg_kit {

template <typename T>
class OwnedSet {
 public:
  void Add(T* handle) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(handle);
  }
  void Remove(T* handle) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(handle);
  }
  // Every handle still live, which the set forgets: the caller frees them.
  std::vector<T*> TakeAll() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T*> all(live_.begin(), live_.end());
    live_.clear();
    return all;
  }

 private:
  std::mutex mu_;
  std::unordered_set<T*> live_;  // guarded by mu_
};

}  // namespace tg_kit

#endif  // TG_PLUGINS_KIT_OWNED_SET_H_
