// trace_recorder.cc: the locked event list, the JSON it becomes, and the write at exit.
#include "runtime/trace_recorder.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/env.h"

namespace tg::runtime {
namespace {

uint64_t SteadyNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += absl::StrFormat("\\u%04x", static_cast<int>(c));
        else out += c;
    }
  }
  return out + "\"";
}

// Microseconds, Chrome's unit, keeping nanoseconds as decimals.
std::string Micros(uint64_t ns) { return absl::StrFormat("%.3f", ns / 1e3); }

// Thread ids and names, process-wide: a thread keeps its id for the whole run.
struct ThreadTable {
  std::mutex mu;
  std::map<int, std::string> names;
  int next = 1;
};

ThreadTable& Threads() {
  static ThreadTable* table = new ThreadTable();
  return *table;
}

bool IsMainThread() { return syscall(SYS_gettid) == getpid(); }

std::string MetadataEvent(const char* what, int pid, int tid, std::string_view name) {
  return absl::StrCat("{\"ph\":\"M\",\"name\":\"", what, "\",\"pid\":", pid, ",\"tid\":", tid,
                      ",\"args\":{\"name\":", JsonString(name), "}}");
}

std::string EventJson(const TraceEvent& e) {
  std::string args;
  for (const TraceArg& a : e.args) absl::StrAppend(&args, args.empty() ? "" : ",", JsonString(a.key), ":", a.json);
  return absl::StrCat("{\"ph\":\"X\",\"name\":", JsonString(e.name), ",\"cat\":", JsonString(e.category),
                      ",\"pid\":", e.lane, ",\"tid\":", e.thread, ",\"ts\":", Micros(e.start_ns),
                      ",\"dur\":", Micros(e.dur_ns), ",\"args\":{", args, "}}");
}

}  // namespace

namespace trace_internal {

bool ReadProfileEnv() {
  bool on = GetEnvInt("PROFILE", 0) != 0;
  int unread = -1;
  if (profiling_state.compare_exchange_strong(unread, on ? 1 : 0) && on) TraceRecorder::WriteAtExit();
  return profiling_state.load() != 0;
}

}  // namespace trace_internal

void SetProfilingForTesting(bool on) { trace_internal::profiling_state.store(on ? 1 : 0); }

TraceArg TraceArg::Str(std::string key, std::string_view value) { return {std::move(key), JsonString(value)}; }

TraceArg TraceArg::Num(std::string key, double value) {
  return {std::move(key), value == static_cast<double>(static_cast<int64_t>(value))
                              ? absl::StrCat(static_cast<int64_t>(value))
                              : absl::StrFormat("%.17g", value)};
}

std::string TraceArg::Address(const void* object) { return absl::StrFormat("%p", object); }

TraceRecorder::TraceRecorder() : lanes_{"host"}, epoch_ns_(SteadyNs()) {}

TraceRecorder& TraceRecorder::Global() {
  static TraceRecorder* recorder = new TraceRecorder();  // leaked: the exit handler still writes it
  return *recorder;
}

uint64_t TraceRecorder::Now() const { return SteadyNs() - epoch_ns_; }

int TraceRecorder::DeviceLane(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 1; i < lanes_.size(); ++i)
    if (lanes_[i] == name) return static_cast<int>(i);
  lanes_.push_back(name);
  return static_cast<int>(lanes_.size() - 1);
}

int TraceRecorder::ThreadId() {
  thread_local int id = 0;
  if (id != 0) return id;
  ThreadTable& t = Threads();
  std::lock_guard<std::mutex> lock(t.mu);
  id = t.next++;
  t.names[id] = IsMainThread() ? "main" : absl::StrCat("thread ", id);
  return id;
}

void TraceRecorder::NameThread(std::string name) {
  int id = ThreadId();
  ThreadTable& t = Threads();
  std::lock_guard<std::mutex> lock(t.mu);
  t.names[id] = std::move(name);
}

void TraceRecorder::Record(TraceEvent event) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(event));
}

std::vector<TraceEvent> TraceRecorder::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

size_t TraceRecorder::EventCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

void TraceRecorder::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
}

std::string TraceRecorder::Json() const {
  std::map<int, std::string> threads;
  {
    ThreadTable& t = Threads();
    std::lock_guard<std::mutex> lock(t.mu);
    threads = t.names;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> parts;
  for (size_t lane = 0; lane < lanes_.size(); ++lane) {
    parts.push_back(MetadataEvent("process_name", static_cast<int>(lane), 0, lanes_[lane]));
    parts.push_back(absl::StrCat("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", lane,
                                 ",\"tid\":0,\"args\":{\"sort_index\":", lane, "}}"));
    if (lane != kHostLane) parts.push_back(MetadataEvent("thread_name", static_cast<int>(lane), 0, "queue"));
  }
  for (const auto& [id, name] : threads) parts.push_back(MetadataEvent("thread_name", kHostLane, id, name));
  for (const TraceEvent& e : events_) parts.push_back(EventJson(e));
  std::string out = "{\"traceEvents\":[\n";
  for (size_t i = 0; i < parts.size(); ++i) absl::StrAppend(&out, parts[i], i + 1 < parts.size() ? ",\n" : "\n");
  return out + "],\"displayTimeUnit\":\"ms\"}\n";
}

bool TraceRecorder::WriteTo(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << Json();
  file.close();
  if (file) return true;
  std::fprintf(stderr, "PROFILE: cannot write the trace to %s\n", path.c_str());
  return false;
}

std::string TraceRecorder::OutputPath() {
  std::string path = GetEnvString("TG_PROFILE_OUT", "");
  return path.empty() ? absl::StrCat("tg_profile_", getpid(), ".json") : path;
}

void TraceRecorder::WriteAtExit() {
  static std::once_flag once;
  std::call_once(once, [] {
    Global();  // made before the handler is registered, so it is still there when the handler runs
    std::atexit([] {
      std::string path = OutputPath();
      if (Global().WriteTo(path))
        std::fprintf(stderr, "PROFILE: %zu events written to %s (tg profile %s)\n", Global().EventCount(),
                     path.c_str(), path.c_str());
    });
  });
}

void TraceSpan::Begin(const char* category, std::string_view name, const std::string* device) {
  TraceRecorder& recorder = TraceRecorder::Global();
  int lane = device == nullptr ? TraceRecorder::kHostLane : recorder.DeviceLane(*device);
  event_.emplace();
  event_->name = std::string(name);
  event_->category = category;
  event_->lane = lane;
  int thread = TraceRecorder::ThreadId();
  event_->thread = lane == TraceRecorder::kHostLane ? thread : 0;
  if (lane != TraceRecorder::kHostLane) event_->args.push_back(TraceArg::Num("host_thread", thread));
  event_->start_ns = recorder.Now();
}

void TraceSpan::End() {
  TraceRecorder& recorder = TraceRecorder::Global();
  uint64_t end = recorder.Now();
  if (device_dur_ns_ && *device_dur_ns_ <= end) event_->start_ns = end - *device_dur_ns_;
  event_->dur_ns = end - event_->start_ns;
  recorder.Record(std::move(*event_));
}

}  // namespace tg::runtime
