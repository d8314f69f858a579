// Fuzz target: a fake plugin whose every answer comes from the fuzzer's bytes: a short or ABI-mismatched
// function table, NULL REQUIRED functions, names and error messages that are NULL, empty, long or not
// NUL-terminated at all, huge device counts, failing initialize/device_open/device_props with any code, and
// props with unterminated strings, huge list counts, NULL lists and writes past the host's struct_size.
// runtime/plugin_loader.h (LoadPluginFromEntry) and Device::Open must answer each with a Status that says
// why, never crash, read out of bounds or leak; whatever they accept must be within the documented bounds.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugins/abi/tg_plugin.h"
#include "runtime/device.h"
#include "runtime/plugin.h"
#include "runtime/plugin_loader.h"

namespace {

// Reads the script: each draw consumes bytes, and an exhausted input reads as zeros (the friendly answer).
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | U8();
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Owns every string and list the fake plugin hands out during one input (freed after the host is done).
struct Arena {
  std::vector<std::unique_ptr<char[]>> blocks;
  // A string of one of five kinds: NULL, "", a name, 300 bytes, or exactly kMaxPluginString bytes without a NUL
  // in a heap block of that size (so ASan sees any read past the bound).
  const char* String(uint8_t kind) {
    switch (kind % 8) {
      case 0: return nullptr;
      case 1: return Copy("");
      case 3: return Copy(std::string(300, 'L'));
      case 4: {
        size_t n = tg::runtime::kMaxPluginString;
        blocks.push_back(std::make_unique<char[]>(n));
        std::memset(blocks.back().get(), 'U', n);
        return blocks.back().get();
      }
      default: return Copy("FAKE");
    }
  }
  const char* Copy(const std::string& s) {
    blocks.push_back(std::make_unique<char[]>(s.size() + 1));
    std::memcpy(blocks.back().get(), s.c_str(), s.size() + 1);
    return blocks.back().get();
  }
};

struct FakeError {
  uint32_t code;
  const char* message;
};

// The current input's script, read by the fake functions below.
struct Script {
  Bytes* in = nullptr;
  Arena* arena = nullptr;
  int live_errors = 0;
  int open_devices = 0;
  int init_balance = 0;
};
Script g;

// |usual| most of the time (so later steps are reached), else a hostile string.
const char* Mostly(const char* usual) {
  uint8_t b = g.in->U8();
  return b < 224 ? usual : g.arena->String(b);
}

tg_error* MaybeFail() {  // one draw: 0..191 succeed, 192.. fail with a code (0 included: a lying plugin)
  uint8_t b = g.in->U8();
  if (b < 192) return nullptr;
  ++g.live_errors;
  return reinterpret_cast<tg_error*>(new FakeError{static_cast<uint32_t>(b - 192) * 7, g.arena->String(g.in->U8())});
}

tg_code ErrorCode(const tg_error* e) { return reinterpret_cast<const FakeError*>(e)->code; }
const char* ErrorMessage(const tg_error* e) { return reinterpret_cast<const FakeError*>(e)->message; }
void ErrorDestroy(tg_error* e) {
  --g.live_errors;
  delete reinterpret_cast<FakeError*>(e);
}
tg_error* Initialize(const tg_host_services*) {
  tg_error* e = MaybeFail();
  if (e == nullptr) ++g.init_balance;
  return e;
}
void Shutdown() { --g.init_balance; }
tg_error* DeviceCount(uint32_t* n) {
  if (tg_error* e = MaybeFail()) return e;
  uint8_t kind = g.in->U8();
  *n = kind < 128 ? kind % 4 : kind < 192 ? g.in->U32() : UINT32_MAX - (kind & 3);
  return nullptr;
}
const char* UnavailableReason() { return g.arena->String(g.in->U8()); }
int g_device_tag;
tg_error* DeviceOpen(uint32_t, tg_device** out) {
  if (tg_error* e = MaybeFail()) return e;
  *out = reinterpret_cast<tg_device*>(&g_device_tag);
  ++g.open_devices;
  return nullptr;
}
void DeviceClose(tg_device*) { --g.open_devices; }

const char* const* List(uint32_t* count) {
  uint8_t kind = g.in->U8();
  uint32_t n = kind < 128 ? kind % 4 : kind < 192 ? g.in->U32() : 64 + (kind & 63);
  *count = n;
  if (kind % 16 == 15) return nullptr;  // NULL with a count
  // Exactly min(n, 64) entries, so reading index n-1 of a longer claim is a heap overflow ASan reports.
  size_t have = n < tg::runtime::kMaxPluginListItems ? n : tg::runtime::kMaxPluginListItems;
  g.arena->blocks.push_back(std::make_unique<char[]>(sizeof(const char*) * (have + 1)));
  auto** items = reinterpret_cast<const char**>(g.arena->blocks.back().get());
  for (size_t i = 0; i < have; ++i) items[i] = g.in->U8() < 32 ? g.arena->String(g.in->U8()) : "c";
  return items;
}

tg_error* DeviceProps(tg_device*, tg_device_props* p) {
  if (tg_error* e = MaybeFail()) return e;
  uint64_t host_size = p->struct_size;
  tg_device_props mine{};
  mine.struct_size = sizeof mine;
  mine.name = Mostly("Fake device");
  mine.vendor = g.arena->String(g.in->U8());
  mine.arch = g.arena->String(g.in->U8());
  mine.compile_fingerprint = g.arena->String(g.in->U8());
  mine.global_mem_bytes = uint64_t{g.in->U32()} << (g.in->U8() % 33);
  mine.min_offset_align = g.in->U8();
  mine.max_group_threads = g.in->U32();
  mine.preferred_vector_width = g.in->U32();
  mine.source_dialects = List(&mine.num_source_dialects);
  mine.binary_formats = List(&mine.num_binary_formats);
  mine.device_type = g.in->U8();
  // Writes what fits (a correct plugin), or up to 255 bytes more (one built against a longer struct).
  uint8_t extra = g.in->U8();
  size_t n = host_size < sizeof mine ? host_size : sizeof mine;
  std::memcpy(p, &mine, n);
  if (extra >= 200) std::memset(reinterpret_cast<char*>(p) + host_size, 0x5A, extra - 199);
  return nullptr;
}

tg_error* Unimplemented() {
  ++g.live_errors;
  return reinterpret_cast<tg_error*>(new FakeError{TG_CODE_UNIMPLEMENTED, "fake"});
}
tg_error* BufferAlloc(tg_device*, uint64_t, uint32_t, tg_buffer**) { return Unimplemented(); }
void BufferFree(tg_buffer*) {}
tg_error* CopyH2D(tg_stream*, tg_buffer*, uint64_t, const void*, uint64_t, tg_event**) { return Unimplemented(); }
tg_error* CopyD2H(tg_stream*, void*, tg_buffer*, uint64_t, uint64_t, tg_event**) { return Unimplemented(); }
tg_error* ProgramCompile(const tg_compile_args*, tg_program**) { return Unimplemented(); }
void ProgramDestroy(tg_program*) {}
tg_error* Launch(const tg_launch_args*) { return Unimplemented(); }
tg_error* StreamSync(tg_device*, tg_stream*) { return nullptr; }
tg_error* EventWait(tg_event*, uint64_t) { return nullptr; }
tg_error* EventQuery(tg_event*, uint32_t* done) {
  *done = 1;
  return nullptr;
}
void EventDestroy(tg_event*) {}

tg_plugin_api g_table;

const tg_plugin_api* GetApi(uint32_t, uint32_t) {
  if (g.in->U8() == 255) return nullptr;
  tg_plugin_api t{};
  uint8_t size_kind = g.in->U8();
  t.struct_size = size_kind < 240 ? sizeof t : TG_SIZE_TO(tg_plugin_api, extensions) - 1 - size_kind % 8;
  t.abi_major = g.in->U8() < 240 ? TG_ABI_MAJOR : g.in->U32();
  t.abi_minor = g.in->U32();
  t.plugin_name = Mostly("FAKE");
  t.plugin_version = g.arena->String(g.in->U8());
  t.error_code = ErrorCode, t.error_message = ErrorMessage, t.error_destroy = ErrorDestroy;
  t.initialize = Initialize, t.shutdown = Shutdown, t.device_count = DeviceCount;
  t.unavailable_reason = g.in->U8() < 128 ? UnavailableReason : nullptr;
  t.device_open = DeviceOpen, t.device_close = DeviceClose, t.device_props = DeviceProps;
  t.buffer_alloc = BufferAlloc, t.buffer_free = BufferFree, t.copy_h2d = CopyH2D, t.copy_d2h = CopyD2H;
  t.program_compile = ProgramCompile, t.program_destroy = ProgramDestroy, t.launch = Launch;
  t.stream_sync = StreamSync, t.event_wait = EventWait, t.event_query = EventQuery, t.event_destroy = EventDestroy;
  if (uint8_t gap = g.in->U8(); gap >= 224) {  // one REQUIRED function NULL
    void** fns = reinterpret_cast<void**>(&t.error_code);
    fns[gap % 20] = nullptr;
  }
  g_table = t;
  return &g_table;
}

bool Terminated(const std::string& s) { return s.size() < tg::runtime::kMaxPluginString; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  Arena arena;
  g = Script{&in, &arena};
  {
    absl::StatusOr<tg::runtime::LoadedPlugin> loaded = tg::runtime::LoadPluginFromEntry("fake.so", GetApi, nullptr);
    if (!loaded.ok()) {
      if (loaded.status().message().empty()) std::abort();  // every rejection says why
    } else {
      const tg::runtime::Plugin& plugin = *loaded->plugin;
      if (loaded->device_count > tg::runtime::kMaxPluginDevices) std::abort();
      if (plugin.name().empty() || !Terminated(plugin.name())) std::abort();
      for (uint32_t i = 0; i < loaded->device_count && i < 3; ++i) {
        absl::StatusOr<std::unique_ptr<tg::runtime::Device>> d = tg::runtime::Device::Open(plugin, i);
        if (!d.ok()) {
          if (d.status().message().empty()) std::abort();
          continue;
        }
        const tg::runtime::DeviceInfo& info = (*d)->info();
        if (info.source_dialects.size() > tg::runtime::kMaxPluginListItems) std::abort();
        if (!Terminated(info.description) || !Terminated(info.vendor) || info.min_offset_align == 0) std::abort();
      }
    }
  }  // the plugin (and its devices) are released here
  if (g.live_errors != 0 || g.open_devices != 0 || g.init_balance != 0) std::abort();  // host leaked or unbalanced
  return 0;
}
