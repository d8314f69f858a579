#include "ir/device_set.h"

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tg {

DeviceSet DeviceSet::FromName(std::string_view name) {
  std::string_view inner = absl::StripAsciiWhitespace(name);
  if (inner.size() < 2 || inner.front() != '(' || inner.back() != ')') return DeviceSet({std::string(name)});
  std::vector<std::string> out;
  for (std::string_view part : absl::StrSplit(inner.substr(1, inner.size() - 2), ','))
    if (std::string_view p = absl::StripAsciiWhitespace(part); !p.empty()) out.emplace_back(p);
  return DeviceSet(std::move(out));
}

std::string DeviceSet::Name() const { return "(" + absl::StrJoin(names_, ", ") + ")"; }

}  // namespace tg
