// plugin_loader.cc: the validation steps of LoadPlugin, one function each.
#include "runtime/plugin_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/env.h"

namespace tg::runtime {
namespace {

constexpr size_t kMaxPluginName = 256;  // plugin_name and plugin_version, NUL included

void Trace(const std::string& path, const std::string& step) {
  if (tg::GetEnvInt("TG_PLUGIN_TRACE", 0) <= 0) return;
  std::fprintf(stderr, "tg plugin trace: %s: %s\n", path.c_str(), step.c_str());
}

// Records |s| as the report's failure and passes it through.
absl::Status Fail(const std::string& path, PluginReport* report, absl::Status s) {
  Trace(path, std::string(s.message()));
  if (report != nullptr) {
    report->status = "failed";
    report->reason = std::string(s.message());
  }
  return s;
}

absl::StatusOr<tg_plugin_get_api_fn> OpenEntry(const std::string& path) {
  Trace(path, "dlopen");
  dlerror();
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(
        absl::StrCat("plugin ", path, ": dlopen failed: ", why ? why : "unknown error"));
  }
  Trace(path, "dlsym " TG_PLUGIN_ENTRY_SYMBOL);
  auto get_api = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  if (get_api == nullptr) {
    const char* why = dlerror();
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin ", path, ": not a tinygrad-cc plugin: it does not export " TG_PLUGIN_ENTRY_SYMBOL,
        why ? absl::StrCat(" (", why, ")") : ""));
  }
  return get_api;
}

absl::StatusOr<const tg_plugin_api*> GetTable(const std::string& path, tg_plugin_get_api_fn get_api) {
  Trace(path, absl::StrCat("calling " TG_PLUGIN_ENTRY_SYMBOL "(", TG_ABI_MAJOR, ", ", TG_ABI_MINOR, ")"));
  const tg_plugin_api* api = get_api(TG_ABI_MAJOR, TG_ABI_MINOR);
  if (api == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", path, ": " TG_PLUGIN_ENTRY_SYMBOL "(", TG_ABI_MAJOR, ", ", TG_ABI_MINOR,
        ") returned NULL: the plugin does not support ABI major ", TG_ABI_MAJOR,
        " (install a plugin built for ABI ", TG_ABI_MAJOR, ".x)"));
  }
  const uint64_t need = TG_SIZE_TO(tg_plugin_api, extensions);
  if (api->struct_size < need) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", path, ": function table too short: struct_size ", api->struct_size, " < ", need,
        " bytes required by ABI ", TG_ABI_MAJOR, ".0 (a plugin built against another ABI?)"));
  }
  return api;
}

// Names of the REQUIRED functions the table leaves NULL (tg_plugin.h marks which).
std::vector<std::string> MissingRequired(const tg_plugin_api& a) {
  std::vector<std::string> missing;
#define TG_REQUIRE(fn) \
  if (a.fn == nullptr) missing.push_back(#fn)
  TG_REQUIRE(error_code); TG_REQUIRE(error_message); TG_REQUIRE(error_destroy);
  TG_REQUIRE(initialize); TG_REQUIRE(shutdown);
  TG_REQUIRE(device_count); TG_REQUIRE(device_open); TG_REQUIRE(device_close); TG_REQUIRE(device_props);
  TG_REQUIRE(buffer_alloc); TG_REQUIRE(buffer_free); TG_REQUIRE(copy_h2d); TG_REQUIRE(copy_d2h);
  TG_REQUIRE(program_compile); TG_REQUIRE(program_destroy); TG_REQUIRE(launch);
  TG_REQUIRE(stream_sync); TG_REQUIRE(event_wait); TG_REQUIRE(event_query); TG_REQUIRE(event_destroy);
#undef TG_REQUIRE
  return missing;
}

// A hostile table may hold unterminated strings: nothing reads them with strlen before this passes.
absl::Status CheckStrings(const std::string& path, const tg_plugin_api& api) {
  bool name_ok = PluginString(api.plugin_name, kMaxPluginName).has_value();
  if (!name_ok || !PluginString(api.plugin_version, kMaxPluginName)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin ", path, ": plugin_", name_ok ? "version" : "name", " is not a NUL-terminated string of at most ",
        kMaxPluginName - 1, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status CheckTable(const std::string& path, const tg_plugin_api& api) {
  std::string who = absl::StrCat("plugin ", api.plugin_name ? api.plugin_name : "(unnamed)", " (", path, ")");
  if (api.abi_major != TG_ABI_MAJOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        who, ": plugin ABI ", api.abi_major, ".", api.abi_minor, " vs host ", TG_ABI_MAJOR, ".",
        TG_ABI_MINOR, ": install a plugin built for ABI ", TG_ABI_MAJOR, ".x or upgrade the host"));
  }
  if (api.plugin_name == nullptr || api.plugin_name[0] == '\0') {
    return absl::FailedPreconditionError(absl::StrCat(who, ": plugin_name is empty"));
  }
  std::vector<std::string> missing = MissingRequired(api);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        who, ": REQUIRED functions are NULL: ", absl::StrJoin(missing, ", ")));
  }
  return absl::OkStatus();
}

absl::Status CountDevices(Plugin& plugin, LoadedPlugin* out) {
  Trace(plugin.path(), "initialize");
  if (absl::Status s = plugin.Initialize(); !s.ok()) return s;
  Trace(plugin.path(), "device_count");
  uint32_t n = 0;
  if (absl::Status s = plugin.Check(plugin.api().device_count(&n), "device_count failed"); !s.ok()) {
    return s;
  }
  if (n > kMaxPluginDevices) {
    return absl::FailedPreconditionError(absl::StrCat("plugin ", plugin.Label(), ": device_count says ", n,
                                                      " devices; at most ", kMaxPluginDevices, " are allowed"));
  }
  out->device_count = n;
  if (n == 0) {
    std::string why = plugin.api().unavailable_reason
                          ? PluginString(plugin.api().unavailable_reason()).value_or("(reason not NUL-terminated)")
                          : "";
    out->unavailable_reason = !why.empty() ? why : "the plugin gave no reason";
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoadedPlugin> LoadPlugin(const std::string& path, PluginReport* report) {
  if (report != nullptr) report->path = path;
  absl::StatusOr<tg_plugin_get_api_fn> entry = OpenEntry(path);
  if (!entry.ok()) return Fail(path, report, entry.status());
  return LoadPluginFromEntry(path, *entry, report);
}

absl::StatusOr<LoadedPlugin> LoadPluginFromEntry(const std::string& path, tg_plugin_get_api_fn get_api,
                                                 PluginReport* report) {
  if (report != nullptr) report->path = path;
  absl::StatusOr<const tg_plugin_api*> api = GetTable(path, get_api);
  if (!api.ok()) return Fail(path, report, api.status());
  const tg_plugin_api& table = **api;
  if (absl::Status s = CheckStrings(path, table); !s.ok()) return Fail(path, report, s);
  if (report != nullptr) {
    report->name = table.plugin_name ? table.plugin_name : "";
    report->version = table.plugin_version ? table.plugin_version : "";
    report->abi_major = table.abi_major;
    report->abi_minor = table.abi_minor;
  }
  if (absl::Status s = CheckTable(path, table); !s.ok()) return Fail(path, report, s);
  LoadedPlugin loaded;
  loaded.plugin = std::make_unique<Plugin>(path, &table);
  if (absl::Status s = CountDevices(*loaded.plugin, &loaded); !s.ok()) {
    return Fail(path, report, s);
  }
  Trace(path, absl::StrCat("ok: ", loaded.device_count, " device(s)",
                           loaded.device_count == 0 ? ": " + loaded.unavailable_reason : ""));
  if (report != nullptr) {
    report->status = loaded.device_count > 0 ? "ok" : "no devices";
    report->reason = loaded.unavailable_reason;
  }
  return loaded;
}

}  // namespace tg::runtime
