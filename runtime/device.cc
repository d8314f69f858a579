// device.cc: compile, launch, copy and sync on one device through its plugin.
#include "runtime/device.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <future>
#include <iterator>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/env.h"
#include "runtime/buffer.h"
#include "runtime/task_pool.h"
#include "runtime/trace_recorder.h"

namespace tg::runtime {
namespace {

// Idle memory the allocator may keep: an eighth of the device, at most 1 GiB.
uint64_t DefaultCacheBytes(const DeviceInfo& info) {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  return info.global_mem_bytes == 0 ? kGiB / 4 : std::min(kGiB, info.global_mem_bytes / 8);
}

// What a kernel's trace event says about it: sizes and the buffers it touched.
void DescribeLaunch(TraceSpan& span, const Program& program, const LaunchDims& dims,
                    absl::Span<const KernelArg> args) {
  span.Arg(TraceArg::Str("kernel", program.entry()));
  span.Arg(TraceArg::Str("global", absl::StrCat(dims.num_groups[0] * dims.group_size[0], ",",
                                                 dims.num_groups[1] * dims.group_size[1], ",",
                                                 dims.num_groups[2] * dims.group_size[2])));
  span.Arg(TraceArg::Str("local", absl::StrJoin(dims.group_size, ",")));
  uint64_t bytes = 0;
  std::vector<std::string> buffers;
  for (const KernelArg& a : args) {
    if (a.kind != TG_ARG_BUFFER || a.buffer == nullptr) continue;
    bytes += a.buffer->nbytes();
    buffers.push_back(TraceArg::Address(a.buffer));
  }
  span.Arg(TraceArg::Num("bytes", static_cast<double>(bytes)));
  span.Arg(TraceArg::Str("buffers", absl::StrJoin(buffers, ",")));
}

void DescribeCopy(TraceSpan& span, const Buffer& buffer, uint64_t nbytes) {
  span.Arg(TraceArg::Num("bytes", static_cast<double>(nbytes)));
  span.Arg(TraceArg::Str("buffer", TraceArg::Address(&buffer)));
}

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Device>> Device::Open(const Plugin& plugin, uint32_t ordinal) {
  const tg_plugin_api& api = plugin.api();
  std::string name = CanonicalDeviceName(plugin.name(), ordinal);
  tg_device* handle = nullptr;
  if (absl::Status s = plugin.Check(api.device_open(ordinal, &handle), absl::StrCat("device_open(", ordinal, ")"));
      !s.ok()) {
    return s;
  }
  // A guard zone after the props catches a plugin that writes past the host's struct_size (one built
  // against a longer tg_device_props that ignores struct_size) before it tramples anything else.
  struct {
    tg_device_props props;
    unsigned char guard[256];
  } guarded{};
  tg_device_props& props = guarded.props;
  props.struct_size = sizeof props;
  absl::Status s = plugin.Check(api.device_props(handle, &props), absl::StrCat("device_props(", name, ")"));
  if (s.ok() && std::any_of(std::begin(guarded.guard), std::end(guarded.guard), [](unsigned char c) { return c; })) {
    s = absl::FailedPreconditionError(absl::StrCat("plugin ", plugin.Label(), ": device_props(", name,
                                                   ") wrote past the struct_size the host passed"));
  }
  if (s.ok()) {
    s = DeviceInfo::CheckProps(props);
    if (!s.ok()) s = absl::Status(s.code(), absl::StrCat("plugin ", plugin.Label(), ": ", name, ": ", s.message()));
  }
  if (!s.ok()) {
    api.device_close(handle);
    return s;
  }
  DeviceInfo info = DeviceInfo::FromProps(props, plugin.name(), ordinal);
  return std::unique_ptr<Device>(new Device(plugin, handle, std::move(info)));
}

Device::Device(const Plugin& plugin, tg_device* handle, DeviceInfo info)
    : plugin_(plugin),
      handle_(handle),
      info_(std::move(info)),
      allocator_(plugin, handle, DefaultCacheBytes(info_)),
      staging_(plugin, handle) {}

Device::~Device() {
  {
    std::unique_lock<std::mutex> lock(async_mu_);
    async_done_.wait(lock, [this] { return async_compiles_ == 0; });
  }
  // Members die after this body, but the device handle must outlive their plugin objects.
  plugin_.Own(plugin_.api().stream_sync(handle_, nullptr));
  staging_.Clear();
  programs_.Clear();
  allocator_.Flush();
  plugin_.api().device_close(handle_);
}

absl::StatusOr<std::shared_ptr<Program>> Device::GetProgram(const KernelSource& src) {
  if (!info_.SupportsDialect(src.dialect)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name(), " does not accept dialect '", src.dialect, "'; it accepts: ",
        info_.source_dialects.empty() ? "(none)" : absl::StrJoin(info_.source_dialects, ", ")));
  }
  std::string key = ProgramCache::Key(info_.plugin, info_.fingerprint, src);
  return programs_.GetOrCompile(key, [&] { return LoadOrCompile(src, key); });
}

ProgramCache::Pending Device::GetProgramAsync(const KernelSource& src) {
  if (!info_.SupportsDialect(src.dialect)) {
    std::promise<ProgramCache::Result> refused;
    refused.set_value(GetProgram(src));  // the dialect error, without a trip through the pool
    return refused.get_future().share();
  }
  std::string key = ProgramCache::Key(info_.plugin, info_.fingerprint, src);
  auto on_pool = [this](std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(async_mu_);
      ++async_compiles_;
    }
    TaskPool::Compiles().Run([this, task = std::move(task)]() mutable {
      task();
      // What the task holds (the promise, and through it the program) goes before the count drops:
      // the last reference to a program must not outlive ~Device.
      task = nullptr;
      std::lock_guard<std::mutex> lock(async_mu_);
      if (--async_compiles_ == 0) async_done_.notify_all();
    });
  };
  return programs_.GetOrStart(key, [this, src, key] { return LoadOrCompile(src, key); }, on_pool);
}

absl::StatusOr<std::shared_ptr<Program>> Device::LoadOrCompile(const KernelSource& src, const std::string& key) {
  const tg_plugin_api& api = plugin_.api();
  const bool cacheable = !src.interpreted && api.program_load != nullptr && api.program_binary != nullptr;
  DiskCache* disk = cacheable ? DiskCache::Global() : nullptr;
  if (disk == nullptr) return CompileUncached(src);
  std::string disk_key = ProgramCache::DiskKey(key);
  if (std::optional<CachedBinary> binary = disk->GetProgram(disk_key)) {
    absl::StatusOr<std::shared_ptr<Program>> loaded = LoadProgram(*binary, src.entry);
    if (loaded.ok()) {
      ++programs_.counters().disk_loads;
      return loaded;
    }
    // FAILED_PRECONDITION (stale or foreign) or any other failure: the row is never tried again.
    ++programs_.counters().disk_rejects;
    if (DebugLevel() >= 2)
      std::fprintf(stderr, "%s: cached binary of '%s' refused, recompiling: %s\n", name().c_str(), src.entry.c_str(),
                   std::string(loaded.status().message()).c_str());
    disk->DropProgram(disk_key);
  }
  absl::StatusOr<std::shared_ptr<Program>> program = CompileUncached(src);
  if (program.ok()) StoreBinary(**program, *disk, disk_key);
  return program;
}

absl::StatusOr<std::shared_ptr<Program>> Device::LoadProgram(const CachedBinary& binary, const std::string& entry) {
  if (plugin_.api().program_load == nullptr)
    return absl::UnimplementedError(absl::StrCat(name(), ": plugin ", info_.plugin, " cannot load program binaries"));
  TraceSpan span("compile", entry);
  if (span.active()) span.Arg(TraceArg::Str("from", "disk cache"));
  tg_program* handle = nullptr;
  absl::Status s = plugin_.Check(plugin_.api().program_load(handle_, binary.format.c_str(), binary.bytes.data(),
                                                            binary.bytes.size(), entry.c_str(), &handle),
                                 absl::StrCat("loading cached kernel '", entry, "' on ", name()));
  if (!s.ok()) return s;
  return std::make_shared<Program>(*this, plugin_, handle, entry);
}

absl::StatusOr<CachedBinary> Device::ProgramBinary(const Program& program) const {
  const char* format = nullptr;
  const void* bytes = nullptr;
  uint64_t len = 0;
  if (plugin_.api().program_binary == nullptr)
    return absl::UnimplementedError(absl::StrCat(name(), ": plugin ", info_.plugin, " has no program binaries"));
  absl::Status s = plugin_.Check(plugin_.api().program_binary(program.handle(), &format, &bytes, &len),
                                 absl::StrCat("program_binary of '", program.entry(), "' on ", name()));
  if (!s.ok()) return s;
  if (format == nullptr || bytes == nullptr)
    return absl::UnimplementedError(absl::StrCat(name(), ": no binary for '", program.entry(), "'"));
  return CachedBinary{format, std::string(static_cast<const char*>(bytes), len)};
}

// A plugin may have no binary for some programs (UNIMPLEMENTED): they are simply not cached.
void Device::StoreBinary(const Program& program, DiskCache& disk, const std::string& disk_key) {
  absl::StatusOr<CachedBinary> binary = ProgramBinary(program);
  if (!binary.ok()) return;
  disk.PutProgram(disk_key, *binary);
  ++programs_.counters().disk_stores;
}

absl::StatusOr<std::shared_ptr<Program>> Device::CompileUncached(const KernelSource& src) {
  ++(src.interpreted ? programs_.counters().interpreted : programs_.counters().compiles);
  TraceSpan span("compile", src.entry);
  if (span.active()) {
    span.Arg(TraceArg::Str("device", name()));
    span.Arg(TraceArg::Str("dialect", src.dialect));
    span.Arg(TraceArg::Num("source_bytes", static_cast<double>(src.source.size())));
  }
  tg_compile_args args{};
  args.struct_size = sizeof args;
  args.device = handle_;
  args.dialect = src.dialect.c_str();
  args.source = src.source.data();
  args.source_len = src.source.size();
  args.entry = src.entry.c_str();
  tg_program* handle = nullptr;
  absl::Status s = plugin_.Check(plugin_.api().program_compile(&args, &handle),
                                 absl::StrCat("compiling kernel '", src.entry, "' for ", name()));
  if (!s.ok()) return s;
  return std::make_shared<Program>(*this, plugin_, handle, src.entry);
}

absl::Status Device::MarshalArgs(absl::Span<const KernelArg> args, tg_arg* out) {
  // The messages are built only on failure: this runs for every argument of every launch.
  auto which = [&](size_t i) { return absl::StrCat(name(), ": launch arg ", i); };
  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    tg_arg t{};
    t.kind = a.kind;
    t.value = a.value;
    if (a.kind == TG_ARG_BUFFER) {
      if (a.buffer == nullptr) return absl::InvalidArgumentError(which(i) + ": null buffer");
      if (&a.buffer->device() != this) {
        return absl::InvalidArgumentError(absl::StrCat(which(i), ": buffer lives on ", a.buffer->device().name()));
      }
      if (a.offset > a.buffer->nbytes() || a.offset % info_.min_offset_align != 0) {
        return absl::InvalidArgumentError(absl::StrCat(which(i), ": offset ", a.offset, " is past the ",
                                                       a.buffer->nbytes(), "-byte buffer or not a multiple of ",
                                                       info_.min_offset_align));
      }
      if (absl::Status s = a.buffer->EnsureAllocated(); !s.ok()) return s;
      t.buffer = a.buffer->handle();
      t.offset = a.offset;
    } else if (a.kind != TG_ARG_I32 && a.kind != TG_ARG_I64) {
      return absl::InvalidArgumentError(absl::StrCat(name(), ": launch arg ", i, ": unknown kind ", a.kind));
    }
    out[i] = t;
  }
  return absl::OkStatus();
}

absl::Status Device::Launch(const Program& program, const LaunchDims& dims,
                            absl::Span<const KernelArg> args, uint64_t* elapsed_ns) {
  if (&program.device() != this) {
    return absl::InvalidArgumentError(absl::StrCat("program '", program.entry(), "' was compiled for ",
                                                   program.device().name(), ", not ", name()));
  }
  // The ABI's arguments on the stack for the usual few, so a launch allocates nothing.
  absl::InlinedVector<tg_arg, 16> targs(args.size());
  if (absl::Status s = MarshalArgs(args, targs.data()); !s.ok()) return s;
  tg_launch_args la{};
  la.struct_size = sizeof la;
  la.program = program.handle();
  for (int d = 0; d < 3; ++d) {
    la.num_groups[d] = dims.num_groups[d];
    la.group_size[d] = dims.group_size[d];
  }
  la.args = args.empty() ? nullptr : targs.data();
  la.num_args = static_cast<uint32_t>(args.size());
  // PROFILE=1 times every launch on the device clock, which makes launches synchronous (docs/profile.md).
  TraceSpan span("kernel", program.entry(), name());
  if (span.active()) {
    DescribeLaunch(span, program, dims, args);
    uint64_t own_elapsed = 0;
    uint64_t* timed = elapsed_ns != nullptr ? elapsed_ns : &own_elapsed;
    absl::Status s = LaunchTimed(la, timed);
    span.SetDeviceDuration(*timed);
    return s;
  }
  if (elapsed_ns != nullptr) return LaunchTimed(la, elapsed_ns);
  tg_error* e;
  {
    std::lock_guard<std::mutex> lock(stream_mu_);
    e = plugin_.api().launch(&la);
  }
  if (e == nullptr) return absl::OkStatus();  // the message below is built only for an error
  return plugin_.Check(e, absl::StrCat("launching '", program.entry(), "' on ", name()));
}

absl::Status Device::LaunchTimed(tg_launch_args& la, uint64_t* elapsed_ns) {
  const tg_plugin_api& api = plugin_.api();
  const bool device_clock = (info_.caps & TG_CAP_TIMING) != 0 && api.event_timing_ns != nullptr;
  tg_event* raw_event = nullptr;
  la.flags = TG_LAUNCH_PROFILE;
  la.out_done = &raw_event;
  std::lock_guard<std::mutex> lock(stream_mu_);
  // Earlier work must not be billed to this kernel by the host clock.
  if (absl::Status s = plugin_.Check(api.stream_sync(handle_, nullptr), "stream_sync"); !s.ok()) return s;
  uint64_t host_start = NowNs();
  if (absl::Status s = plugin_.Check(api.launch(&la), "launch"); !s.ok()) return s;
  std::unique_ptr<tg_event, void (*)(tg_event*)> event(raw_event, api.event_destroy);
  absl::Status waited = event ? plugin_.Check(api.event_wait(event.get(), UINT64_MAX), "kernel failed")
                              : absl::OkStatus();
  uint64_t host_end = NowNs();
  // Drain the stream too, so this kernel's failure is reported here and not again at the next sync.
  absl::Status synced = plugin_.Check(api.stream_sync(handle_, nullptr), "kernel failed");
  if (!waited.ok()) return waited;
  if (!synced.ok()) return synced;
  uint64_t start = 0, end = 0;
  if (device_clock && event &&
      plugin_.Check(api.event_timing_ns(event.get(), &start, &end), "event_timing_ns").ok() && end >= start) {
    *elapsed_ns = end - start;
  } else {
    *elapsed_ns = host_end - host_start;
  }
  return absl::OkStatus();
}

absl::Status Device::Synchronize() {
  std::lock_guard<std::mutex> lock(stream_mu_);
  absl::Status s = plugin_.Check(plugin_.api().stream_sync(handle_, nullptr), absl::StrCat("synchronizing ", name()));
  staging_.ReclaimAll();  // every staged upload has been read by now
  return s;
}

bool Device::OrdersWithEvents() const {
  const tg_plugin_api& api = plugin_.api();
  return ApiHas(api, TG_SIZE_TO(tg_plugin_api, event_record), &tg_plugin_api::event_record) &&
         ApiHas(api, TG_SIZE_TO(tg_plugin_api, device_wait_event), &tg_plugin_api::device_wait_event);
}

absl::StatusOr<DeviceEvent> Device::RecordEvent() {
  const tg_plugin_api& api = plugin_.api();
  tg_event* raw = nullptr;
  if (ApiHas(api, TG_SIZE_TO(tg_plugin_api, event_record), &tg_plugin_api::event_record)) {
    std::lock_guard<std::mutex> lock(stream_mu_);
    absl::Status s = plugin_.Check(api.event_record(handle_, nullptr, &raw), absl::StrCat("event_record on ", name()));
    if (!s.ok()) return s;
  }
  if (raw != nullptr) return DeviceEvent(&api, raw);
  // No event_record, or no event from it: what it would have covered is done once the device is.
  if (absl::Status s = Synchronize(); !s.ok()) return s;
  return DeviceEvent();
}

absl::Status Device::WaitFor(const DeviceEvent& event) {
  if (event.empty()) return absl::OkStatus();
  const tg_plugin_api& api = plugin_.api();
  if (OrdersWithEvents()) {
    tg_error* e;
    {
      std::lock_guard<std::mutex> lock(stream_mu_);
      e = api.device_wait_event(handle_, nullptr, event.get());
    }
    Plugin::ErrorPtr error = plugin_.Own(e);
    if (error == nullptr) return absl::OkStatus();
    if (api.error_code(error.get()) != TG_CODE_UNIMPLEMENTED) {
      return plugin_.Check(error.release(), absl::StrCat("device_wait_event on ", name()));
    }
  }
  return plugin_.Check(api.event_wait(event.get(), UINT64_MAX), absl::StrCat("waiting on ", name(), " for another device"));
}

absl::Status Device::WriteBuffer(Buffer& buffer, uint64_t offset, const void* src, uint64_t nbytes) {
  TraceSpan span("copy", "copy in (host to device)", name());
  if (span.active()) DescribeCopy(span, buffer, nbytes);
  const tg_plugin_api& api = plugin_.api();
  // Without page-locked memory (none offered, too large, or none left to lock) the copy reads |src|
  // before returning.
  absl::StatusOr<PinnedStaging::Block> block =
      staging_.Stages(nbytes) ? staging_.Acquire(nbytes) : absl::UnavailableError("not staged");
  if (!block.ok()) {
    std::lock_guard<std::mutex> lock(stream_mu_);
    return plugin_.Check(api.copy_h2d(nullptr, buffer.handle(), offset, src, nbytes, nullptr),
                         absl::StrCat("copy to ", name()));
  }
  std::memcpy(block->ptr, src, nbytes);
  tg_event* copied = nullptr;
  tg_error* e;
  {
    std::lock_guard<std::mutex> lock(stream_mu_);
    e = api.copy_h2d(nullptr, buffer.handle(), offset, block->ptr, nbytes, &copied);
    if (e == nullptr && copied == nullptr) e = api.stream_sync(handle_, nullptr);  // no event: wait here
  }
  staging_.Release(*block, copied != nullptr ? DeviceEvent(&api, copied) : DeviceEvent());
  if (e == nullptr) return absl::OkStatus();  // the message below is built only for an error
  return plugin_.Check(e, absl::StrCat("copy to ", name()));
}

absl::Status Device::ReadBuffer(Buffer& buffer, uint64_t offset, void* dst, uint64_t nbytes) {
  TraceSpan span("copy", "copy out (device to host)", name());
  if (span.active()) DescribeCopy(span, buffer, nbytes);
  std::lock_guard<std::mutex> lock(stream_mu_);
  return plugin_.Check(plugin_.api().copy_d2h(nullptr, dst, buffer.handle(), offset, nbytes, nullptr),
                       absl::StrCat("copy from ", name()));
}

absl::Status Device::CopyDeviceToDevice(Buffer& dst, Buffer& src, uint64_t nbytes) {
  TraceSpan span("copy", "copy between devices", name());
  if (span.active()) DescribeCopy(span, dst, nbytes);
  std::lock_guard<std::mutex> lock(stream_mu_);
  return plugin_.Check(plugin_.api().copy_d2d(nullptr, dst.handle(), 0, src.handle(), 0, nbytes, nullptr),
                       absl::StrCat("copy from ", src.device().name(), " to ", name()));
}

}  // namespace tg::runtime
