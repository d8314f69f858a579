// device.h: one opened device of one plugin: compiles (with an in-memory program cache), launches,
// copies and synchronizes. The end of the walk in docs/architecture.md: everything that runs goes through here.
#ifndef TG_RUNTIME_DEVICE_H_
#define TG_RUNTIME_DEVICE_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/buffer_allocator.h"
#include "runtime/device_event.h"
#include "runtime/device_info.h"
#include "runtime/disk_cache.h"
#include "runtime/launch_args.h"
#include "runtime/pinned_staging.h"
#include "runtime/plugin.h"
#include "runtime/program.h"
#include "runtime/program_cache.h"

namespace tg::runtime {

class Buffer;

class Device {              // one opened device of one plugin; owned by the registry, lives until exit
 public:
  // device_open + device_props. Errors name the plugin, its path and the ordinal. |plugin| must
  // outlive the device.
  static absl::StatusOr<std::unique_ptr<Device>> Open(const Plugin& plugin, uint32_t ordinal);
  // Waits for its compiles still running on the task pool, frees cached buffers and programs, then
  // device_close. Every Buffer and Program of this device
  // must be gone by now (registry devices are never destroyed, so this matters only in tests).
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }   // info().name
  const Plugin& plugin() const { return plugin_; }
  tg_device* handle() const { return handle_; }
  BufferAllocator& allocator() { return allocator_; }
  ProgramCache& program_cache() { return programs_; }

  // Compiled program for |src|: from the in-memory program cache (key: ABI major, plugin, fingerprint,
  // dialect, entry, source), else program_compile. A failed compile returns the plugin's message
  // (build log). INVALID_ARGUMENT, listing the device's dialects, for a dialect it does not accept.
  // Behind the memory cache sits the sqlite DiskCache: a cached binary is loaded with program_load
  // (a refused one is dropped and recompiled), and a fresh compile's program_binary is stored.
  absl::StatusOr<std::shared_ptr<Program>> GetProgram(const KernelSource& src);
  // GetProgram without waiting: the work runs on TaskPool::Compiles(), so the kernels of one schedule
  // compile side by side (a plugin's program_compile is callable from several threads: tg_plugin.h).
  // The same source asked for twice, here or through GetProgram, compiles once. get() gives what
  // GetProgram would have returned.
  ProgramCache::Pending GetProgramAsync(const KernelSource& src);
  // program_compile with no cache at all, for BEAM candidates (most are thrown away). Counted in
  // program_cache().counters().compiles like every compile.
  absl::StatusOr<std::shared_ptr<Program>> CompileUncached(const KernelSource& src);
  // A compiled program's bytes (program_binary), for the disk cache and saved Jits; UNIMPLEMENTED when
  // the plugin has no binaries (or none for this program).
  absl::StatusOr<CachedBinary> ProgramBinary(const Program& program) const;
  // program_load of bytes ProgramBinary gave (maybe in another process), bypassing both caches and
  // compiling nothing. FAILED_PRECONDITION from the plugin for a stale or foreign binary.
  absl::StatusOr<std::shared_ptr<Program>> LoadProgram(const CachedBinary& binary, const std::string& entry);

  // Enqueues a launch. With |elapsed_ns| != nullptr: launches with TG_LAUNCH_PROFILE, waits, and stores the
  // kernel's time (event_timing_ns when the device has TG_CAP_TIMING, else host clock around a synchronous run).
  // Buffers are allocated here if they were not yet. INVALID_ARGUMENT for a program or buffer of
  // another device or a misaligned / out-of-range offset. Without |elapsed_ns|, errors of the running
  // kernel surface at the next Synchronize (or CopyOut).
  absl::Status Launch(const Program& program, const LaunchDims& dims, absl::Span<const KernelArg> args,
                      uint64_t* elapsed_ns = nullptr);
  absl::Status Synchronize();                // stream_sync on the default stream

  // Whether work of two devices of this plugin is ordered on the devices (event_record and
  // device_wait_event, ABI 1.1) rather than by the host waiting.
  bool OrdersWithEvents() const;
  // An event for everything enqueued on this device so far. Without event_record the device is
  // synchronized instead and the event is empty (complete).
  absl::StatusOr<DeviceEvent> RecordEvent();
  // Work enqueued on this device from now on starts after |event| (made by a device of this plugin)
  // has completed: on the device where the plugin can (device_wait_event), else the host waits.
  absl::Status WaitFor(const DeviceEvent& event);

  // Host -> device copy on the default stream (used by Buffer). |src| may be reused on return: where
  // the plugin has page-locked memory it is staged there and the device copies it after this returns
  // (PinnedStaging), else the copy is synchronous. |buffer| must be allocated and of this device;
  // ranges are the caller's to check.
  absl::Status WriteBuffer(Buffer& buffer, uint64_t offset, const void* src, uint64_t nbytes);
  // Synchronous device -> host copy on the default stream; the caller synchronizes first.
  absl::Status ReadBuffer(Buffer& buffer, uint64_t offset, void* dst, uint64_t nbytes);
  // copy_d2d on this device's default stream from |src| (a buffer of this plugin, maybe of another
  // of its devices) into |dst| (of this device). Ordering with |src|'s device is the caller's
  // (Buffer::CopyFrom). Used by Buffer::CopyFrom.
  absl::Status CopyDeviceToDevice(Buffer& dst, Buffer& src, uint64_t nbytes);
  PinnedStaging& pinned_staging() { return staging_; }

 private:
  Device(const Plugin& plugin, tg_device* handle, DeviceInfo info);
  absl::StatusOr<std::shared_ptr<Program>> LoadOrCompile(const KernelSource& src, const std::string& key);
  void StoreBinary(const Program& program, DiskCache& disk, const std::string& disk_key);
  absl::Status MarshalArgs(absl::Span<const KernelArg> args, tg_arg* out);  // out: args.size() slots
  absl::Status LaunchTimed(tg_launch_args& la, uint64_t* elapsed_ns);

  const Plugin& plugin_;
  tg_device* handle_;
  DeviceInfo info_;
  std::mutex stream_mu_;     // the ABI makes the host serialize enqueues on one stream
  std::mutex async_mu_;      // guards async_compiles_
  std::condition_variable async_done_;
  int async_compiles_ = 0;   // GetProgramAsync tasks not yet finished; the destructor waits for 0
  BufferAllocator allocator_;
  ProgramCache programs_;
  PinnedStaging staging_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_DEVICE_H_
