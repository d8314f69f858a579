// trace_recorder.h: PROFILE=1's timeline (docs/profile.md). Every stage of a realize records into it, from
// the runtime up: scheduling, codegen and compiles on the host lane, kernel runs, copies and allocations on
// their device's lane, Jit capture and replay around them. The result is a Chrome trace-event JSON that
// Perfetto, chrome://tracing and `tg profile` read.
//
// With PROFILE unset a call site costs one load of a cached flag: TraceSpan reads no clock and builds no
// argument, and nothing takes a lock.
#ifndef TG_RUNTIME_TRACE_RECORDER_H_
#define TG_RUNTIME_TRACE_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg::runtime {

namespace trace_internal {
// -1 until PROFILE is read, then 0 or 1; constant-initialized, so any static initializer may ask.
inline std::atomic<int> profiling_state{-1};
bool ReadProfileEnv();
}  // namespace trace_internal

// PROFILE=1 (any non-zero integer), read once.
inline bool Profiling() {
  int state = trace_internal::profiling_state.load(std::memory_order_relaxed);
  return state >= 0 ? state != 0 : trace_internal::ReadProfileEnv();
}

// One argument of an event, already JSON: a string (escaped here) or a number.
struct TraceArg {
  static TraceArg Str(std::string key, std::string_view value);
  static TraceArg Num(std::string key, double value);
  // How the trace names an object (a buffer): its address, unique among the objects alive at one time.
  static std::string Address(const void* object);
  std::string key;
  std::string json;
};

// One complete event (Chrome's ph "X"): |lane| is the process row (0 = host, then one per device), |thread|
// the small id of the host thread that recorded it, or 0 (the queue) on a device lane, where the host
// thread goes in the "host_thread" argument. Times are the recorder's clock in nanoseconds.
struct TraceEvent {
  std::string name;
  std::string category;   // schedule, codegen, compile, kernel, copy, alloc, jit
  int lane = 0;
  int thread = 0;
  uint64_t start_ns = 0;
  uint64_t dur_ns = 0;
  std::vector<TraceArg> args;
};

class TraceRecorder {
 public:
  static constexpr int kHostLane = 0;

  // The process-wide recorder; with PROFILE=1 it writes itself out at exit (WriteAtExit).
  static TraceRecorder& Global();

  // Nanoseconds on the recorder's clock (steady, zero at the recorder's start).
  uint64_t Now() const;
  // The lane of device |name| ("CPU", "CUDA:1"), made on first use.
  int DeviceLane(const std::string& name);
  // The calling thread's id in the trace: 1 for the first thread that records, then 2, 3, ...
  static int ThreadId();
  // Names the calling thread's row ("main" and "thread N" by default).
  static void NameThread(std::string name);

  void Record(TraceEvent event);
  std::vector<TraceEvent> Events() const;
  size_t EventCount() const;
  void Clear();  // events only; lanes and thread names stay

  // {"traceEvents": [...], "displayTimeUnit": "ms"} with process and thread name metadata first.
  std::string Json() const;
  // Writes Json() to |path|; false (with a message on stderr) when the file cannot be written.
  bool WriteTo(const std::string& path) const;
  // $TG_PROFILE_OUT, else tg_profile_<pid>.json in the working directory.
  static std::string OutputPath();
  // Registers the write at exit (once): Profiling() calls it when PROFILE=1 is first seen.
  static void WriteAtExit();

 private:
  TraceRecorder();
  mutable std::mutex mu_;
  std::vector<TraceEvent> events_;
  std::vector<std::string> lanes_;  // index = lane; lanes_[0] is the host
  uint64_t epoch_ns_;
};

// Enables or disables recording for this process, overriding PROFILE (tests).
void SetProfilingForTesting(bool on);

// Times a scope as one complete event, when Profiling(). Arguments are added with Arg only after checking
// active(), so a disabled span builds nothing.
class TraceSpan {
 public:
  // On the host lane.
  TraceSpan(const char* category, std::string_view name) {
    if (Profiling()) Begin(category, name, nullptr);
  }
  // On the lane of device |device| (its name), found only when recording.
  TraceSpan(const char* category, std::string_view name, const std::string& device) {
    if (Profiling()) Begin(category, name, &device);
  }
  ~TraceSpan() {
    if (event_) End();
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;

  bool active() const { return event_.has_value(); }
  void Arg(TraceArg arg) { event_->args.push_back(std::move(arg)); }  // only when active()
  void Rename(std::string_view name) { event_->name = std::string(name); }  // only when active()
  // The event lasts |dur_ns| (the device's own duration of the work) and ends when this span does, not
  // from construction to end: the host's wait around it is not the device's time.
  void SetDeviceDuration(uint64_t dur_ns) { device_dur_ns_ = dur_ns; }

 private:
  void Begin(const char* category, std::string_view name, const std::string* device);
  void End();

  std::optional<TraceEvent> event_;
  std::optional<uint64_t> device_dur_ns_;
};

}  // namespace tg::runtime

#endif  // TG_RUNTIME_TRACE_RECORDER_H_
