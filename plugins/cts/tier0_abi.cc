// tier0_abi.cc: T0, the ABI and load checks: what the host relies on before it calls anything else.
#include <cstring>
#include <string>
#include <vector>

#include "plugins/cts/device_session.h"
#include "plugins/cts/elf_exports.h"
#include "plugins/cts/plugin_handle.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

void Load(const Plugin& p) {
  if (p.api == nullptr) Fail(p.load_error);
}

void ExportsOnlyEntry(const Plugin& p) {
  std::vector<std::string> syms;
  std::string error;
  if (!DefinedDynamicSymbols(p.path, &syms, &error)) Fail(error);
  std::string extra;
  bool has_entry = false;
  for (const std::string& s : syms) {
    if (s == TG_PLUGIN_ENTRY_SYMBOL) {
      has_entry = true;
    } else {
      extra += (extra.empty() ? "" : ", ") + s;
    }
  }
  CTS_CHECK(has_entry, "the library does not export " TG_PLUGIN_ENTRY_SYMBOL);
  CTS_CHECK(extra.empty(), "also exported (link with plugins/abi/plugin.lds and -fvisibility=hidden): " +
                               extra.substr(0, 400));
}

void TableHeader(const Plugin& p) {
  const tg_plugin_api& a = RequireApi(p);
  CTS_CHECK(a.abi_minor <= 1000, "implausible abi_minor " + std::to_string(a.abi_minor));
  std::string name = a.plugin_name != nullptr ? a.plugin_name : "";
  CTS_CHECK(!name.empty(), "plugin_name is empty");
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    CTS_CHECK(ok, "plugin_name '" + name + "' is not an upper-case device prefix ([A-Z0-9_])");
  }
  CTS_CHECK(a.plugin_version != nullptr && a.plugin_version[0] != '\0', "plugin_version is empty");
  CTS_CHECK(IsValidUtf8(a.plugin_version), "plugin_version is not UTF-8");
  // The table is static: asking again returns the same one.
  CTS_CHECK(p.get_api(TG_ABI_MAJOR, TG_ABI_MINOR) == &a, "a second call returned another table");
}

void RequiredFunctions(const Plugin& p) {
  const tg_plugin_api& a = RequireApi(p);
  std::string missing;
  for (const std::string& m : MissingRequired(a)) missing += " " + m;
  CTS_CHECK(missing.empty(), "NULL:" + missing);
  // OPTIONAL functions that only make sense together.
  bool streams = a.stream_create != nullptr;
  CTS_CHECK(!streams || (a.stream_destroy != nullptr && a.stream_wait_event != nullptr),
            "stream_create without stream_destroy / stream_wait_event");
}

void NewerMajorRefused(const Plugin& p) {
  if (p.get_api == nullptr) Skip("no " TG_PLUGIN_ENTRY_SYMBOL " (see Abi.load)");
  const tg_plugin_api* t = p.get_api(TG_ABI_MAJOR + 1, 0);
  // NULL is the expected answer; a table is fine only if it honestly states its major, so the
  // host's major check refuses it (or it really implements major+1).
  if (t != nullptr) {
    CTS_CHECK(t->struct_size >= TG_SIZE_TO(tg_plugin_api, abi_major), "table without abi_major");
  }
}

void NewerMinorAccepted(const Plugin& p) {
  if (p.get_api == nullptr) Skip("no " TG_PLUGIN_ENTRY_SYMBOL " (see Abi.load)");
  const tg_plugin_api* t = p.get_api(TG_ABI_MAJOR, TG_ABI_MINOR + 7);
  CTS_CHECK(t != nullptr, "NULL for a newer host minor: only a different major may be refused");
  CTS_CHECK(t->abi_major == TG_ABI_MAJOR, "wrong major " + std::to_string(t->abi_major));
}

// Called by the plugin: must not throw (it would unwind through the plugin's C frames).
void HostLog(void* ctx, int32_t, const char* message) {
  if (message != nullptr) ++*static_cast<int*>(ctx);
}

void InitializeBalanced(const Plugin& p) {
  const tg_plugin_api& a = RequireApi(p);
  int log_calls = 0;
  tg_host_services host{};
  host.struct_size = sizeof host;
  host.abi_major = TG_ABI_MAJOR;
  host.abi_minor = TG_ABI_MINOR;
  host.log = HostLog;
  host.log_ctx = &log_calls;
  Check(a, a.initialize(&host), "initialize #1");
  Check(a, a.initialize(nullptr), "initialize #2 (NULL host services)");
  uint32_t n1 = 0, n2 = 0;
  Check(a, a.device_count(&n1), "device_count");
  a.shutdown();  // one reference left: the plugin must still work
  Check(a, a.device_count(&n2), "device_count after one of two shutdowns");
  CTS_CHECK(n1 == n2, "device count changed from " + std::to_string(n1) + " to " + std::to_string(n2));
  a.shutdown();
  Check(a, a.initialize(nullptr), "initialize after a full shutdown");
  a.shutdown();
}

void ErrorsCarryCodeAndMessage(const Plugin& p) {
  const tg_plugin_api& a = RequireApi(p);
  Check(a, a.initialize(nullptr), "initialize");
  uint32_t n = 0;
  Status count = Take(a, a.device_count(&n));
  tg_device* d = nullptr;
  Status s = Take(a, a.device_open(n, &d));  // one past the last ordinal
  if (s.ok() && d != nullptr) a.device_close(d);
  a.shutdown();
  CTS_CHECK(count.ok(), "device_count: " + Describe(count));
  CTS_CHECK(!s.ok(), "device_open(" + std::to_string(n) + ") with " + std::to_string(n) + " devices succeeded");
  CTS_CHECK(s.code == TG_CODE_NOT_FOUND, "device_open past the count: want NOT_FOUND, got " + Describe(s));
  CTS_CHECK(!s.message.empty(), "empty error message");
  CTS_CHECK(IsValidUtf8(s.message.c_str()), "error message is not UTF-8");
}

// device_props with a short struct_size inside a larger canary-filled buffer: nothing past it
// may change (a host built for an older minor owns only that much memory).
void PropsShortStruct(const Plugin& p) {
  DeviceSession s(p);
  for (size_t size : {sizeof(uint64_t), TG_SIZE_TO(tg_device_props, arch)}) {
    alignas(tg_device_props) unsigned char raw[sizeof(tg_device_props) + 64];
    std::memset(raw, 0xA5, sizeof raw);
    uint64_t struct_size = size;
    std::memcpy(raw, &struct_size, sizeof struct_size);
    std::memset(raw + sizeof struct_size, 0, size - sizeof struct_size);
    Check(s.api(), s.api().device_props(s.device(), reinterpret_cast<tg_device_props*>(raw)),
          "device_props(struct_size " + std::to_string(size) + ")");
    for (size_t i = size; i < sizeof raw; ++i) {
      CTS_CHECK(raw[i] == 0xA5, "struct_size " + std::to_string(size) + ": byte " + std::to_string(i) +
                                    " past the end was written");
    }
    uint64_t after;
    std::memcpy(&after, raw, sizeof after);
    CTS_CHECK(after == size, "struct_size was changed to " + std::to_string(after));
  }
}

// A newer host passes a longer struct with a zeroed unknown tail: accepted, tail left alone.
void PropsLongStruct(const Plugin& p) {
  DeviceSession s(p);
  alignas(tg_device_props) unsigned char raw[sizeof(tg_device_props) + 64] = {};
  uint64_t struct_size = sizeof raw;
  std::memcpy(raw, &struct_size, sizeof struct_size);
  Check(s.api(), s.api().device_props(s.device(), reinterpret_cast<tg_device_props*>(raw)),
        "device_props(struct_size " + std::to_string(sizeof raw) + ")");
  for (size_t i = sizeof(tg_device_props); i < sizeof raw; ++i) {
    CTS_CHECK(raw[i] == 0, "byte " + std::to_string(i) + " past the 1.0 struct was written");
  }
  tg_device_props got;
  std::memcpy(&got, raw, sizeof got);
  CTS_CHECK(got.name != nullptr && got.name == std::string(s.props().name),
            "the long struct got other contents than the exact one");
}

void CheckString(const char* s, const std::string& what, bool may_be_empty) {
  CTS_CHECK(s != nullptr, what + " is NULL");
  CTS_CHECK(may_be_empty || s[0] != '\0', what + " is empty");
  CTS_CHECK(IsValidUtf8(s), what + " is not UTF-8");
}

void PropsStrings(const Plugin& p) {
  DeviceSession s(p);
  const tg_device_props& d = s.props();
  CheckString(d.name, "name", false);
  CheckString(d.vendor, "vendor", false);
  CheckString(d.arch, "arch", false);
  CheckString(d.compile_fingerprint, "compile_fingerprint", false);
  CTS_CHECK(d.num_source_dialects == 0 || d.source_dialects != nullptr, "source_dialects is NULL");
  for (uint32_t i = 0; i < d.num_source_dialects; ++i) CheckString(d.source_dialects[i], "dialect", false);
  CTS_CHECK(d.num_binary_formats == 0 || d.binary_formats != nullptr, "binary_formats is NULL");
  for (uint32_t i = 0; i < d.num_binary_formats; ++i) CheckString(d.binary_formats[i], "format", false);
}

void PropsConsistent(const Plugin& p) {
  DeviceSession s(p);
  const tg_device_props& d = s.props();
  CTS_CHECK(d.min_offset_align >= 1, "min_offset_align is 0");
  CTS_CHECK(d.max_group_threads >= 1, "max_group_threads is 0");
  for (int i = 0; i < 3; ++i) CTS_CHECK(d.max_group_size[i] >= 1, "max_group_size has a 0");
  CTS_CHECK(d.num_source_dialects + d.num_binary_formats >= 1, "a device that accepts no programs");
  CTS_CHECK(!s.HasCap(TG_CAP_TIMING) || s.api().event_timing_ns != nullptr,
            "TG_CAP_TIMING declared but event_timing_ns is NULL");
  CTS_CHECK(d.max_alloc_bytes == 0 || d.global_mem_bytes == 0 || d.max_alloc_bytes <= d.global_mem_bytes,
            "max_alloc_bytes > global_mem_bytes");
}

// What the props declare holds when used: a known device type, and a device that declares its buffers
// host-addressable (TG_CAP_UNIFIED_MEMORY) hands out, through tg.native_handles, a host address that
// reads what a copy wrote. The other caps are held by the cases that use them (TG_CAP_FP16 by the half
// host kernels, TG_CAP_TIMING by Execution.profiled_timing).
void DeclaredPropsHold(const Plugin& p) {
  DeviceSession s(p);
  const tg_device_props& d = s.props();
  CTS_CHECK(d.device_type <= TG_DEVICE_TYPE_ACCELERATOR,
            "device_type " + std::to_string(d.device_type) + " is none of the TG_DEVICE_TYPE_* values (or 0)");
  if (!s.HasCap(TG_CAP_UNIFIED_MEMORY)) return;
  const tg_native_handles_ext* native = nullptr;
  for (const tg_ext* e = s.api().extensions; e != nullptr; e = e->next) {
    if (e->name != nullptr && std::strcmp(e->name, TG_NATIVE_HANDLES_NAME) == 0 &&
        e->struct_size >= TG_SIZE_TO(tg_native_handles_ext, buffer_native)) {
      native = reinterpret_cast<const tg_native_handles_ext*>(e);
    }
  }
  if (native == nullptr || native->buffer_native == nullptr) return;  // nothing more to hold it to
  const uint32_t pattern[4] = {0x01234567u, 0x89abcdefu, 0xdeadbeefu, 7u};
  Buffer b = s.Alloc(sizeof pattern);
  s.Write(b, 0, pattern, sizeof pattern);
  s.Sync();
  uint64_t address = 0;
  const char* kind = nullptr;
  Check(s.api(), native->buffer_native(b.get(), &address, &kind), "buffer_native");
  CTS_CHECK(kind != nullptr && std::strcmp(kind, "host") == 0,
            std::string("TG_CAP_UNIFIED_MEMORY declared but buffer_native says memory kind '") +
                (kind != nullptr ? kind : "(null)") + "', not 'host'");
  CTS_CHECK(address != 0 && std::memcmp(reinterpret_cast<const void*>(address), pattern, sizeof pattern) == 0,
            "TG_CAP_UNIFIED_MEMORY declared but the buffer's host address does not hold what was copied in");
}

}  // namespace

std::vector<Case> Tier0AbiCases() {
  return {
      {0, "Abi.load", Load},
      {0, "Abi.exports_only_entry", ExportsOnlyEntry},
      {0, "Abi.table_header", TableHeader},
      {0, "Abi.required_functions", RequiredFunctions},
      {0, "Abi.newer_major_refused", NewerMajorRefused},
      {0, "Abi.newer_minor_accepted", NewerMinorAccepted},
      {0, "Abi.initialize_balanced", InitializeBalanced},
      {0, "Abi.errors_carry_code_and_message", ErrorsCarryCodeAndMessage},
      {0, "Abi.props_short_struct", PropsShortStruct},
      {0, "Abi.props_long_struct", PropsLongStruct},
      {0, "Abi.props_strings", PropsStrings},
      {0, "Abi.props_consistent", PropsConsistent},
      {0, "Abi.declared_props_hold", DeclaredPropsHold},
  };
}

}  // namespace tg_cts
