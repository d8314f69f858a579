// plugin.h: one loaded device plugin: its function table, RAII for the tg_error objects it returns,
// and their conversion to absl::Status with the plugin's name and path in every message.
#ifndef TG_RUNTIME_PLUGIN_H_
#define TG_RUNTIME_PLUGIN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::runtime {

class Plugin {
 public:
  // Owns nothing it can release: the library stays loaded for good (never dlclose()d: a plugin's
  // threads or atexit handlers may still run code from it), and |api| is its static table. The loader has
  // already checked that |api| holds every ABI 1.0 field and every REQUIRED function, so callers
  // test an OPTIONAL 1.0 function with a plain NULL check (fields added in 1.x need TG_HAS).
  Plugin(std::string path, const tg_plugin_api* api);
  // Balances a successful Initialize() with shutdown().
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  const std::string& path() const { return path_; }
  const tg_plugin_api& api() const { return *api_; }
  const std::string& name() const { return name_; }    // plugin_name, upper case
  std::string Label() const;                           // "CPU (/path/libtg_cpu.so)"

  // Calls initialize() with host services that route the plugin's log lines to stderr.
  absl::Status Initialize();

  // Deleter for a tg_error: the plugin that made it must free it.
  struct ErrorDeleter {
    const tg_plugin_api* api;
    void operator()(tg_error* e) const {
      if (e != nullptr) api->error_destroy(e);
    }
  };
  using ErrorPtr = std::unique_ptr<tg_error, ErrorDeleter>;
  ErrorPtr Own(tg_error* e) const { return ErrorPtr(e, ErrorDeleter{api_}); }

  // OK for NULL; else a Status with the plugin's code and "<label>: <what>: <message>". Takes
  // ownership of |e| and frees it.
  absl::Status Check(tg_error* e, std::string_view what) const;

 private:
  std::string path_;
  const tg_plugin_api* api_;
  std::string name_;
  bool initialized_ = false;
};

// Whether |api| (a plugin's table, of its struct_size) has the function ending at byte |size_to|,
// written TG_SIZE_TO(tg_plugin_api, field), and that function is set: how the host asks for an
// ABI 1.x addition.
template <typename Fn>
bool ApiHas(const tg_plugin_api& api, size_t size_to, Fn tg_plugin_api::*field) {
  return api.struct_size >= size_to && api.*field != nullptr;
}

// Bounds on what the host reads from a plugin, so that a hostile or broken one cannot make it read out
// of bounds: strings must end with a NUL within kMaxPluginString bytes, string lists (dialects, binary
// formats) hold at most kMaxPluginListItems entries, and a plugin reports at most kMaxPluginDevices
// devices. The host never reads past these bounds.
inline constexpr size_t kMaxPluginString = 4096;
inline constexpr uint32_t kMaxPluginListItems = 64;
inline constexpr uint32_t kMaxPluginDevices = 1024;

// The string at |s| ("" for NULL), reading at most |max| bytes; nullopt when no NUL comes within them.
std::optional<std::string> PluginString(const char* s, size_t max = kMaxPluginString);

// "UNAVAILABLE" for 14, "code 99" for numbers absl does not know.
std::string CodeName(tg_code code);
// The absl code for a plugin's tg_code (UNKNOWN for numbers outside absl's range).
absl::StatusCode ToStatusCode(tg_code code);

}  // namespace tg::runtime

#endif  // TG_RUNTIME_PLUGIN_H_
