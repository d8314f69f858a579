#include "ir/device_set.h"

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tg {

DeviceSet DeviceSet::FromName(std::string_view name) {
  std::string inner(absl::StripAsciiWhitespace(std::string(name)));
  if (inner.size() < 2 || inner.front() != '(' || inner.back() != ')') return DeviceSet({std::string(name)});
  std::vector<std::string> out;
  std::vector<std::string> parts = absl::StrSplit(inner.substr(1, inner.size() - 2), ',');
  for (const std::string& part : parts)
    if (std::string p(absl::StripAsciiWhitespace(part)); !p.empty()) out.push_back(p);
  return DeviceSet(std::move(out));
}

std::string DeviceSet::Name() const { return "(" + absl::StrJoin(names_, ", ") + ")"; }

}  // namespace tg
