#include "ir/env.h"

#include <cstdlib>

#include "absl/strings/numbers.h"

namespace tg {

int64_t GetEnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  int64_t parsed = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &parsed)) return fallback;
  return parsed;
}

std::string GetEnvString(const char* name, std::string_view fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string(fallback) : std::string(value);
}

int64_t DebugLevel() {
  static const int64_t level = GetEnvInt("DEBUG", 0);
  return level;
}

}  // namespace tg
