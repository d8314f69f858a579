// DeviceSet: the devices a tensor spread over several lives on, one per shard, in shard order
// (canonical names). A value: compared as its list, printed as the tuple name "(CPU, CPU:1)" that
// Tensor::device() shows and the device arguments of the front end accept.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

class DeviceSet {
 public:
  DeviceSet() = default;
  DeviceSet(std::vector<std::string> names) : names_(std::move(names)) {}  // NOLINT: a list of names is a set
  DeviceSet(std::initializer_list<std::string> names) : names_(names) {}

  // The devices a device argument names: the members of a tuple name "(CPU, CPU:1)", or {name}.
  static DeviceSet FromName(std::string_view name);
  // "(CPU, CPU:1)".
  std::string Name() const;

  const std::vector<std::string>& names() const { return names_; }
  operator const std::vector<std::string>&() const { return names_; }  // NOLINT: reads as its list
  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const std::string& operator[](size_t i) const { return names_[i]; }
  std::vector<std::string>::const_iterator begin() const { return names_.begin(); }
  std::vector<std::string>::const_iterator end() const { return names_.end(); }
  bool operator==(const DeviceSet& other) const = default;

 private:
  std::vector<std::string> names_;
};

}  // namespace tg
