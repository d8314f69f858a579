// plugin_loader.h: dlopen()s one plugin file and validates it step by step (docs/plugins.md), so a broken
// plugin is reported with the exact reason and never crashes the host.
#ifndef TG_RUNTIME_PLUGIN_LOADER_H_
#define TG_RUNTIME_PLUGIN_LOADER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/plugin.h"
#include "runtime/plugin_report.h"

namespace tg::runtime {

// A plugin that passed every check, initialized, with its device count.
struct LoadedPlugin {
  std::unique_ptr<Plugin> plugin;
  uint32_t device_count = 0;
  std::string unavailable_reason;  // when device_count == 0: the plugin's reason, or a default
};

// Loads |path| in this order, each failure with its own message naming the plugin and the path:
//   1. dlopen(RTLD_NOW | RTLD_LOCAL)             -> UNAVAILABLE, with dlerror()'s text
//   2. dlsym("tg_plugin_get_api")                -> INVALID_ARGUMENT: not a plugin
//   3. tg_plugin_get_api(1, 0) returned NULL     -> FAILED_PRECONDITION
//   4. struct_size < TG_SIZE_TO(tg_plugin_api, extensions) -> FAILED_PRECONDITION
//   5. abi_major != TG_ABI_MAJOR                 -> FAILED_PRECONDITION
//   6. NULL REQUIRED functions (all named)       -> FAILED_PRECONDITION
//   7. initialize() failed                       -> the plugin's code, with its message
//   8. device_count() failed                     -> the plugin's code, with its message
// Zero devices is not an error: the result has device_count 0 and the reason. |report| (may be
// NULL) receives path, name, version, ABI, status and reason as far as loading got. The library
// is never dlclose()d, even on failure (its code may already be referenced).
// TG_PLUGIN_TRACE=1 logs every step to stderr.
// Steps 3-8 also bound what the host reads: plugin_name/plugin_version must be NUL-terminated within 256
// bytes and device_count at most kMaxPluginDevices (FAILED_PRECONDITION otherwise).
absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path, PluginReport* report);

// Steps 3-8 for an entry point already in hand (a statically linked plugin, or a fake one in a test or
// fuzzer); |path| only labels messages.
absl::StatusOr<LoadedPlugin> LoadPluginFromEntry(const std::string& path, tg_plugin_get_api_fn get_api,
                                                 PluginReport* report);

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PLUGIN_LOADER_H_
