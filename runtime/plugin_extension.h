// plugin_extension.h: finding an extension in a plugin's tg_plugin_api.extensions chain (tg_plugin.h:
// matched by name string and version, never by a central enum).
#ifndef TG_RUNTIME_PLUGIN_EXTENSION_H_
#define TG_RUNTIME_PLUGIN_EXTENSION_H_

#include <cstdint>
#include <string_view>

#include "plugins/abi/tg_plugin.h"
#include "runtime/plugin.h"

namespace tg::runtime {

// The first extension of |plugin| named |name| whose version is >= |min_version| and whose struct_size
// covers |min_size| bytes (the fields the caller will read), or nullptr. Reads the chain with the same
// bounds as the rest of the host (kMaxPluginListItems links, names within kMaxPluginString bytes), so
// a broken or circular chain ends the search instead of the process.
const tg_ext* FindExtension(const Plugin& plugin, std::string_view name, uint32_t min_version, uint64_t min_size);

// Typed: FindExtension<tg_native_handles_ext>(plugin, TG_NATIVE_HANDLES_NAME, 1, TG_SIZE_TO(...)).
template <class Ext>
const Ext* FindExtension(const Plugin& plugin, std::string_view name, uint32_t min_version, uint64_t min_size) {
  return reinterpret_cast<const Ext*>(FindExtension(plugin, name, min_version, min_size));
}

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PLUGIN_EXTENSION_H_
