// plugin_extension.cc: a bounded walk over a plugin's extension chain.
#include "runtime/plugin_extension.h"

#include <optional>
#include <string>

namespace tg::runtime {

const tg_ext* FindExtension(const Plugin& plugin, std::string_view name, uint32_t min_version, uint64_t min_size) {
  const tg_ext* ext = plugin.api().extensions;
  for (uint32_t links = 0; ext != nullptr && links < kMaxPluginListItems; ++links, ext = ext->next) {
    if (ext->struct_size < TG_SIZE_TO(tg_ext, next)) return nullptr;  // not even a chain link: stop here
    std::optional<std::string> ext_name = PluginString(ext->name);
    if (ext_name && *ext_name == name && ext->version >= min_version && ext->struct_size >= min_size) return ext;
  }
  return nullptr;
}

}  // namespace tg::runtime
