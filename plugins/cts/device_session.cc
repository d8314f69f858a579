// device_session.cc: opening the device under test and the checked wrappers around the table.
#include "plugins/cts/device_session.h"

#include <algorithm>

#include "plugins/cts/cts_case.h"
#include "plugins/cts/kernel_corpus.h"

namespace tg_cts {

tg_arg BufferArg(const Buffer& b, uint64_t offset) {
  tg_arg a{};
  a.kind = TG_ARG_BUFFER;
  a.buffer = b.get();
  a.offset = offset;
  return a;
}

tg_arg I32Arg(int32_t v) {
  tg_arg a{};
  a.kind = TG_ARG_I32;
  a.value = v;
  return a;
}

tg_arg I64Arg(int64_t v) {
  tg_arg a{};
  a.kind = TG_ARG_I64;
  a.value = v;
  return a;
}

DeviceSession::DeviceSession(const Plugin& p) : plugin_(p), api_(RequireApi(p)) {
  if (p.device_count == 0) Skip("the plugin reports zero devices: " + p.no_device_reason);
  Check(api_, api_.initialize(nullptr), "initialize");
  Status s = Take(api_, api_.device_open(p.device_ordinal, &device_));
  if (s.ok() && device_ == nullptr) s = {TG_CODE_UNKNOWN, "device_open returned OK and no device"};
  if (s.ok()) {
    props_.struct_size = sizeof props_;
    s = Take(api_, api_.device_props(device_, &props_));
  }
  if (!s.ok()) {
    if (device_ != nullptr) api_.device_close(device_);
    api_.shutdown();
    Fail("opening device " + std::to_string(p.device_ordinal) + ": " + Describe(s));
  }
}

DeviceSession::~DeviceSession() {
  CloseDevice();
  api_.shutdown();
}

void DeviceSession::CloseDevice() {
  if (device_ != nullptr) api_.device_close(device_);
  device_ = nullptr;
}

bool DeviceSession::HasDialect(const std::string& dialect) const {
  for (uint32_t i = 0; props_.source_dialects != nullptr && i < props_.num_source_dialects; ++i) {
    if (props_.source_dialects[i] != nullptr && dialect == props_.source_dialects[i]) return true;
  }
  return false;
}

std::string DeviceSession::ExecDialect() const {
  std::string declared;
  for (uint32_t i = 0; props_.source_dialects != nullptr && i < props_.num_source_dialects; ++i) {
    std::string d = props_.source_dialects[i] != nullptr ? props_.source_dialects[i] : "";
    if (KernelSource(plugin_, d, "add_one").has_value()) return d;
    declared += (declared.empty() ? "" : ", ") + d;
  }
  Skip("no kernel corpus for the declared dialects (" + (declared.empty() ? "none" : declared) + ")");
}

Buffer DeviceSession::Alloc(uint64_t bytes) const {
  tg_buffer* b = nullptr;
  Check(api_, api_.buffer_alloc(device_, bytes, 0, &b), "buffer_alloc(" + std::to_string(bytes) + ")");
  CTS_CHECK(b != nullptr, "buffer_alloc returned OK and no buffer");
  return Buffer(&api_, b);
}

void DeviceSession::Write(const Buffer& b, uint64_t offset, const void* src, uint64_t n) const {
  Check(api_, api_.copy_h2d(nullptr, b.get(), offset, src, n, nullptr),
        "copy_h2d(offset " + std::to_string(offset) + ", " + std::to_string(n) + " bytes)");
}

void DeviceSession::Read(const Buffer& b, uint64_t offset, void* dst, uint64_t n) const {
  Check(api_, api_.copy_d2h(nullptr, dst, b.get(), offset, n, nullptr),
        "copy_d2h(offset " + std::to_string(offset) + ", " + std::to_string(n) + " bytes)");
}

tg_error* DeviceSession::CompileRaw(const std::string& dialect, const std::string& source,
                                    const std::string& entry, tg_program** out) const {
  tg_compile_args a{};
  a.struct_size = sizeof a;
  a.device = device_;
  a.dialect = dialect.c_str();
  a.source = source.data();
  a.source_len = source.size();
  a.entry = entry.c_str();
  return api_.program_compile(&a, out);
}

Program DeviceSession::Compile(const std::string& dialect, const std::string& name) const {
  std::optional<std::string> source = KernelSource(plugin_, dialect, name);
  if (!source) Fail("kernel corpus file missing: " + dialect + "/" + name);
  tg_program* p = nullptr;
  Check(api_, CompileRaw(dialect, *source, name, &p), "program_compile(" + dialect + " " + name + ")");
  CTS_CHECK(p != nullptr, "program_compile returned OK and no program");
  return Program(&api_, p);
}

tg_error* DeviceSession::LaunchRaw(const Program& prog, const Grid& g, const std::vector<tg_arg>& args,
                                   uint32_t flags, tg_event** done, tg_stream* stream) const {
  tg_launch_args a{};
  a.struct_size = sizeof a;
  a.stream = stream;
  a.program = prog.get();
  std::copy(g.groups, g.groups + 3, a.num_groups);
  std::copy(g.size, g.size + 3, a.group_size);
  a.args = args.data();
  a.num_args = static_cast<uint32_t>(args.size());
  a.flags = flags;
  a.out_done = done;
  return api_.launch(&a);
}

void DeviceSession::Launch(const Program& prog, const Grid& g, const std::vector<tg_arg>& args) const {
  Check(api_, LaunchRaw(prog, g, args), "launch");
}

void DeviceSession::Sync(tg_stream* stream) const {
  Check(api_, api_.stream_sync(device_, stream), "stream_sync");
}

Grid Linear(const DeviceSession& s, uint64_t n, uint32_t group) {
  uint32_t limit = std::min(s.props().max_group_size[0], s.props().max_group_threads);
  Grid g;
  g.size[0] = std::max(1u, std::min(group, limit));
  g.groups[0] = static_cast<uint32_t>((n + g.size[0] - 1) / g.size[0]);
  return g;
}

}  // namespace tg_cts
