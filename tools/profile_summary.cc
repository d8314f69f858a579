// profile_summary.cc: trace events -> self times per bucket and per kernel, by nesting each host thread's
// events (and the device work it waited for) in time.
#include "tools/profile_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace tg::tools {
namespace {

struct Span {
  double ts = 0, dur = 0, self = 0;
  std::string name, category;
};

const nlohmann::json& EventList(const nlohmann::json& trace) {
  if (trace.is_array()) return trace;
  if (trace.is_object() && trace.contains("traceEvents") && trace["traceEvents"].is_array())
    return trace["traceEvents"];
  throw std::runtime_error("not a trace: expected {\"traceEvents\": [...]} or an array of events");
}

double Number(const nlohmann::json& e, const char* key, size_t index) {
  if (!e.contains(key) || !e[key].is_number())
    throw std::runtime_error("event " + std::to_string(index) + " (ph \"X\") has no numeric \"" + key + "\"");
  return e[key].get<double>();
}

std::string Text(const nlohmann::json& e, const char* key) {
  return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
}

// The thread whose time an event belongs to: a host thread's own events, and device work carrying the
// host_thread that waited for it. Other device events (another tracer's) stand alone on their lane.
std::string ThreadKey(const nlohmann::json& e) {
  int pid = e.value("pid", 0), tid = e.value("tid", 0);
  if (e.contains("args") && e["args"].is_object() && e["args"].contains("host_thread"))
    return "host/" + e["args"]["host_thread"].dump();
  return pid == 0 ? "host/" + std::to_string(tid) : std::to_string(pid) + "/" + std::to_string(tid);
}

// Subtracts from each span the spans directly nested in it (events of one thread, sorted by start).
void TakeOutNested(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
  constexpr double kSlackUs = 1e-3;  // timestamps are printed to the nanosecond
  std::vector<Span*> open;
  for (Span& s : spans) {
    while (!open.empty() && open.back()->ts + open.back()->dur <= s.ts + kSlackUs) open.pop_back();
    if (!open.empty() && s.ts + s.dur <= open.back()->ts + open.back()->dur + kSlackUs) open.back()->self -= s.dur;
    open.push_back(&s);
  }
}

void AddToBucket(ProfileSummary& summary, const Span& s) {
  double self = std::max(0.0, s.self);
  if (s.category == "kernel") summary.device_us += self;
  else if (s.category == "copy") summary.copy_us += self;
  else if (s.category == "compile") summary.compile_us += self;
  else if (s.category == "wait") summary.wait_us += self;
  else summary.host_us += self;
}

}  // namespace

ProfileSummary Summarize(const nlohmann::json& trace) {
  const nlohmann::json& events = EventList(trace);
  ProfileSummary summary;
  std::map<std::string, std::vector<Span>> by_thread;
  std::map<int, std::string> lanes;
  double first = 0, last = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    if (!e.is_object()) throw std::runtime_error("event " + std::to_string(i) + " is not an object");
    if (Text(e, "ph") == "M" && Text(e, "name") == "process_name" && e.contains("args"))
      lanes[e.value("pid", 0)] = e["args"].value("name", std::string());
    if (Text(e, "ph") != "X") continue;
    Span s{Number(e, "ts", i), Number(e, "dur", i), 0, Text(e, "name"), Text(e, "cat")};
    s.self = s.dur;
    first = summary.events == 0 ? s.ts : std::min(first, s.ts);
    last = summary.events == 0 ? s.ts + s.dur : std::max(last, s.ts + s.dur);
    ++summary.events;
    by_thread[ThreadKey(e)].push_back(std::move(s));
  }
  summary.wall_us = last - first;
  for (const auto& [pid, name] : lanes) summary.lanes.push_back(name);
  std::map<std::string, ProfileSummary::Kernel> kernels;
  for (auto& [thread, spans] : by_thread) {
    TakeOutNested(spans);
    for (const Span& s : spans) {
      AddToBucket(summary, s);
      if (s.category != "kernel") continue;
      ProfileSummary::Kernel& k = kernels[s.name];
      k.name = s.name;
      ++k.count;
      k.total_us += s.dur;
    }
  }
  for (auto& [name, k] : kernels) summary.kernels.push_back(std::move(k));
  std::sort(summary.kernels.begin(), summary.kernels.end(), [](const auto& a, const auto& b) {
    return a.total_us != b.total_us ? a.total_us > b.total_us : a.name < b.name;
  });
  return summary;
}

namespace {

std::string Duration(double us) {
  char buf[32];
  if (us >= 1e6) std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  else if (us >= 1e3) std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  else std::snprintf(buf, sizeof buf, "%.2f us", us);
  return buf;
}

std::string Line(const char* format, auto... values) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, values...);
  return buf;
}

}  // namespace

std::string FormatSummary(const ProfileSummary& s, size_t top) {
  std::string lanes;
  for (const std::string& l : s.lanes) lanes += (lanes.empty() ? "" : ", ") + l;
  std::string out = Line("%zu events over %s; lanes: %s\n\n", s.events, Duration(s.wall_us).c_str(),
                         lanes.empty() ? "(none named)" : lanes.c_str());
  double total = s.host_us + s.compile_us + s.device_us + s.copy_us;
  auto share = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  out += "time split (self time, summed over threads)\n";
  const std::pair<const char*, double> split[] = {
      {"host", s.host_us}, {"compile", s.compile_us}, {"device", s.device_us}, {"copy", s.copy_us}};
  for (const auto& [what, us] : split)
    out += Line("  %-8s %12s %6.1f%%\n", what, Duration(us).c_str(), share(us, total));
  if (s.wait_us > 0)
    out += Line("  (host threads also waited %s for compiles; the compiles are counted above)\n",
                Duration(s.wait_us).c_str());
  out += Line("\ntop kernels (of %zu, by device time)\n", s.kernels.size());
  out += Line("  %-40s %6s %12s %12s %6s\n", "kernel", "count", "total", "mean", "share");
  for (size_t i = 0; i < s.kernels.size() && i < top; ++i) {
    const ProfileSummary::Kernel& k = s.kernels[i];
    out += Line("  %-40s %6lld %12s %12s %5.1f%%\n", k.name.c_str(), static_cast<long long>(k.count),
                Duration(k.total_us).c_str(), Duration(k.total_us / k.count).c_str(), share(k.total_us, s.device_us));
  }
  return out;
}

}  // namespace tg::tools
