// plugin.cc: error conversion and the host services handed to plugins.
#include "runtime/plugin.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "ir/env.h"

namespace tg::runtime {
namespace {

// Host log service: errors and warnings always, info at DEBUG>=2, debug at DEBUG>=4.
void HostLog(void* ctx, int32_t level, const char* message) {
  static const int64_t kMinDebug[] = {0, 0, 2, 4};
  int64_t need = level >= 0 && level <= 3 ? kMinDebug[level] : 4;
  if (tg::DebugLevel() < need || message == nullptr) return;
  const auto* plugin = static_cast<const Plugin*>(ctx);
  std::fprintf(stderr, "tg: plugin %s: %s\n", plugin->name().c_str(), message);
}

}  // namespace

Plugin::Plugin(std::string path, const tg_plugin_api* api) : path_(std::move(path)), api_(api) {
  name_ = absl::AsciiStrToUpper(PluginString(api_->plugin_name).value_or(""));  // the loader checked it
}

Plugin::~Plugin() {
  if (initialized_) api_->shutdown();
}

std::string Plugin::Label() const { return absl::StrCat(name_, " (", path_, ")"); }

absl::Status Plugin::Initialize() {
  tg_host_services host{};
  host.struct_size = sizeof host;
  host.abi_major = TG_ABI_MAJOR;
  host.abi_minor = TG_ABI_MINOR;
  host.log = HostLog;
  host.log_ctx = this;
  absl::Status s = Check(api_->initialize(&host), "initialize failed");
  initialized_ = s.ok();
  return s;
}

absl::Status Plugin::Check(tg_error* raw, std::string_view what) const {
  if (raw == nullptr) return absl::OkStatus();
  ErrorPtr e = Own(raw);
  tg_code code = api_->error_code(e.get());
  std::string msg =
      PluginString(api_->error_message(e.get()), TG_MAX_MESSAGE_BYTES)
          .value_or(absl::StrCat("(message not NUL-terminated within ", TG_MAX_MESSAGE_BYTES, " bytes)"));
  if (code == TG_CODE_OK) code = TG_CODE_UNKNOWN;  // an error object must not read as success
  return absl::Status(ToStatusCode(code), absl::StrCat("plugin ", Label(), ": ", std::string(what), ": ",
                                                       CodeName(code), ": ", msg));
}

std::optional<std::string> PluginString(const char* s, size_t max) {
  if (s == nullptr) return std::string();
  size_t n = strnlen(s, max);  // never strlen: the plugin may not have terminated it
  if (n == max) return std::nullopt;
  return std::string(s, n);
}

absl::StatusCode ToStatusCode(tg_code code) {
  return code <= 16 ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown;
}

std::string CodeName(tg_code code) {
  if (code > 16) return absl::StrCat("code ", code);
  return absl::AsciiStrToUpper(absl::StatusCodeToString(ToStatusCode(code)));
}

}  // namespace tg::runtime
