// plugin_handle.cc: loading the plugin under test and reading its errors.
#include "plugins/cts/plugin_handle.h"

#include <dlfcn.h>

#include "plugins/cts/cts_case.h"

namespace tg_cts {
namespace {

std::string Str(const char* s) { return s != nullptr ? s : ""; }

std::vector<std::string> StringArray(const char* const* items, uint32_t n) {
  std::vector<std::string> out;
  for (uint32_t i = 0; items != nullptr && i < n; ++i) out.push_back(Str(items[i]));
  return out;
}

DeviceSummary Summarize(const tg_plugin_api& api, uint32_t ordinal) {
  DeviceSummary d;
  d.ordinal = ordinal;
  tg_device* dev = nullptr;
  Status s = Take(api, api.device_open(ordinal, &dev));
  if (!s.ok() || dev == nullptr) {
    d.error = "device_open: " + (s.ok() ? std::string("returned OK but no device") : Describe(s));
    return d;
  }
  tg_device_props props{};
  props.struct_size = sizeof props;
  s = Take(api, api.device_props(dev, &props));
  if (s.ok()) {
    d.name = Str(props.name);
    d.vendor = Str(props.vendor);
    d.arch = Str(props.arch);
    d.fingerprint = Str(props.compile_fingerprint);
    d.dialects = StringArray(props.source_dialects, props.num_source_dialects);
    d.binary_formats = StringArray(props.binary_formats, props.num_binary_formats);
    d.caps = props.caps;
  } else {
    d.error = "device_props: " + Describe(s);
  }
  api.device_close(dev);
  return d;
}

}  // namespace

std::vector<std::string> MissingRequired(const tg_plugin_api& a) {
  std::vector<std::string> missing;
#define TG_CTS_REQUIRE(fn) \
  if (a.fn == nullptr) missing.push_back(#fn)
  TG_CTS_REQUIRE(error_code); TG_CTS_REQUIRE(error_message); TG_CTS_REQUIRE(error_destroy);
  TG_CTS_REQUIRE(initialize); TG_CTS_REQUIRE(shutdown); TG_CTS_REQUIRE(device_count);
  TG_CTS_REQUIRE(device_open); TG_CTS_REQUIRE(device_close); TG_CTS_REQUIRE(device_props);
  TG_CTS_REQUIRE(buffer_alloc); TG_CTS_REQUIRE(buffer_free); TG_CTS_REQUIRE(copy_h2d);
  TG_CTS_REQUIRE(copy_d2h); TG_CTS_REQUIRE(program_compile); TG_CTS_REQUIRE(program_destroy);
  TG_CTS_REQUIRE(launch); TG_CTS_REQUIRE(stream_sync); TG_CTS_REQUIRE(event_wait);
  TG_CTS_REQUIRE(event_query); TG_CTS_REQUIRE(event_destroy);
#undef TG_CTS_REQUIRE
  return missing;
}

void OpenPlugin(Plugin* p) {
  dlerror();
  void* lib = dlopen(p->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    p->load_error = "dlopen failed: " + Str(dlerror());
    return;
  }
  p->get_api = reinterpret_cast<tg_plugin_get_api_fn>(dlsym(lib, TG_PLUGIN_ENTRY_SYMBOL));
  if (p->get_api == nullptr) {
    p->load_error = "not a plugin: it does not export " TG_PLUGIN_ENTRY_SYMBOL;
    return;
  }
  const tg_plugin_api* api = p->get_api(TG_ABI_MAJOR, TG_ABI_MINOR);
  if (api == nullptr) {
    p->load_error = TG_PLUGIN_ENTRY_SYMBOL "(" + std::to_string(TG_ABI_MAJOR) + ", " +
                    std::to_string(TG_ABI_MINOR) + ") returned NULL for the plugin's own major";
    return;
  }
  if (api->struct_size < TG_SIZE_TO(tg_plugin_api, extensions)) {
    p->load_error = "function table too short: struct_size " + std::to_string(api->struct_size);
    return;
  }
  if (api->abi_major != TG_ABI_MAJOR) {
    p->load_error = "table says ABI major " + std::to_string(api->abi_major) + ", host is " +
                    std::to_string(TG_ABI_MAJOR);
    return;
  }
  std::vector<std::string> missing = MissingRequired(*api);
  if (!missing.empty()) {
    p->load_error = "REQUIRED functions are NULL:";
    for (const std::string& m : missing) p->load_error += " " + m;
    return;
  }
  p->api = api;
}

std::string SurveyDevices(Plugin* p) {
  const tg_plugin_api& api = *p->api;
  Status s = Take(api, api.initialize(nullptr));
  if (!s.ok()) return "initialize: " + Describe(s);
  s = Take(api, api.device_count(&p->device_count));
  if (s.ok() && p->device_count == 0) {
    const char* why = api.unavailable_reason != nullptr ? api.unavailable_reason() : nullptr;
    p->no_device_reason = why != nullptr && why[0] != '\0' ? why : "the plugin gave no reason";
  }
  for (uint32_t i = 0; s.ok() && i < p->device_count; ++i) p->devices.push_back(Summarize(api, i));
  api.shutdown();
  return s.ok() ? "" : "device_count: " + Describe(s);
}

Status Take(const tg_plugin_api& api, tg_error* error) {
  Status s;
  if (error == nullptr) return s;
  s.code = api.error_code(error);
  s.message = Str(api.error_message(error));
  api.error_destroy(error);
  // An error object that claims OK would make the host treat a failure as success.
  if (s.code == TG_CODE_OK) {
    s.code = TG_CODE_UNKNOWN;
    s.message = "(the plugin returned a non-NULL tg_error whose code is OK) " + s.message;
  }
  return s;
}

const char* CodeName(tg_code code) {
  static const char* const kNames[] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  if (code < sizeof kNames / sizeof kNames[0]) return kNames[code];
  return "(invalid code)";
}

std::string Describe(const Status& s) {
  return std::string(CodeName(s.code)) + " (" + std::to_string(s.code) + "): " + s.message;
}

void Check(const tg_plugin_api& api, tg_error* error, const std::string& what) {
  Status s = Take(api, error);
  if (!s.ok()) Fail(what + ": " + Describe(s));
}

const tg_plugin_api& RequireApi(const Plugin& p) {
  if (p.api == nullptr) Skip("the plugin did not load (see Abi.load)");
  return *p.api;
}

bool IsValidUtf8(const char* s) {
  if (s == nullptr) return false;
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  while (*u != 0) {
    int extra = *u < 0x80 ? 0 : (*u >> 5) == 0x6 ? 1 : (*u >> 4) == 0xE ? 2 : (*u >> 3) == 0x1E ? 3 : -1;
    if (extra < 0) return false;
    ++u;
    for (int i = 0; i < extra; ++i, ++u) {
      if ((*u & 0xC0) != 0x80) return false;  // also stops at the terminating NUL
    }
  }
  return true;
}

}  // namespace tg_cts
