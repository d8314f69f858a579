// plugin_handle.h: the plugin under test, loaded the way the host loader does it, plus error helpers.
// The CTS's view of one .so (docs/plugins.md): the T0 load steps of the host loader and what they found.
#ifndef TG_PLUGINS_CTS_PLUGIN_HANDLE_H_
#define TG_PLUGINS_CTS_PLUGIN_HANDLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/abi/tg_plugin.h"

namespace tg_cts {

// One device as its props described it at startup (copied: props strings die with device_close).
struct DeviceSummary {
  uint32_t ordinal = 0;
  std::string name, vendor, arch, fingerprint;
  std::vector<std::string> dialects, binary_formats;
  uint32_t caps = 0;
  std::string error;  // device_open / device_props failed: why
};

struct Plugin {
  std::string path;
  tg_plugin_get_api_fn get_api = nullptr;
  const tg_plugin_api* api = nullptr;  // NULL when loading failed
  std::string load_error;              // why loading failed ("" when api is set)
  uint32_t device_count = 0;
  std::string no_device_reason;        // unavailable_reason(), when device_count == 0
  std::vector<DeviceSummary> devices;
  uint32_t device_ordinal = 0;         // --device
  std::string kernels_dir;             // --kernels; "" = from the runfiles
  std::string host_corpus_dir;         // --host-corpus: the generated corpus; "" = from the runfiles
  std::string argv0;
};

// dlopen(RTLD_NOW | RTLD_LOCAL) -> dlsym -> get_api(TG_ABI_MAJOR, TG_ABI_MINOR) -> table size,
// major and REQUIRED functions, as runtime/plugin_loader.cc does. Sets p->api, or p->load_error
// naming the failed step. The library is never dlclose()d.
void OpenPlugin(Plugin* p);

// initialize -> device_count -> unavailable_reason -> props of every device -> shutdown.
// Fills device_count, no_device_reason and devices; returns "" or what went wrong.
std::string SurveyDevices(Plugin* p);

// The names of the REQUIRED functions |api| leaves NULL (tg_plugin.h marks which).
std::vector<std::string> MissingRequired(const tg_plugin_api& api);

// A tg_error read and destroyed: the CTS never holds plugin errors.
struct Status {
  tg_code code = TG_CODE_OK;
  std::string message;
  bool ok() const { return code == TG_CODE_OK; }
};
Status Take(const tg_plugin_api& api, tg_error* error);

const char* CodeName(tg_code code);   // "INVALID_ARGUMENT", or "code 42"
std::string Describe(const Status& s);  // "NOT_FOUND: <message>"

// Fails the current case with "|what|: CODE: message" when |error| is not NULL.
void Check(const tg_plugin_api& api, tg_error* error, const std::string& what);

// Skips the current case unless the plugin loaded (T0 load failures are reported once, there).
const tg_plugin_api& RequireApi(const Plugin& p);

bool IsValidUtf8(const char* s);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_PLUGIN_HANDLE_H_
