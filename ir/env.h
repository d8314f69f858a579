// Environment knobs (DEBUG, BEAM, NOOPT, TG_DEVICE ...) read the way tinygrad users expect.
// Read by every stage of the walk in docs/architecture.md; nothing here depends on the rest of the IR.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tg {

// DEBUG=4 -> 4; unset, empty or not a whole integer -> |fallback|. Read on every call (tests set env vars).
int64_t GetEnvInt(const char* name, int64_t fallback);
// The raw value, or |fallback| when unset.
std::string GetEnvString(const char* name, std::string_view fallback);
// GetEnvInt("DEBUG", 0), read once and cached: it is consulted on hot paths.
int64_t DebugLevel();

}  // namespace tg
