// profile_summary.h: what `tg profile` prints from a PROFILE=1 trace (docs/profile.md): the kernels that took
// the most device time, and where the time went: host work, compiles, kernels on the device, copies.
#ifndef TG_TOOLS_PROFILE_SUMMARY_H_
#define TG_TOOLS_PROFILE_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace tg::tools {

struct ProfileSummary {
  struct Kernel {
    std::string name;
    int64_t count = 0;
    double total_us = 0;
  };
  std::vector<Kernel> kernels;   // by total device time, largest first
  std::vector<std::string> lanes;
  size_t events = 0;
  double wall_us = 0;            // first event's start to last event's end
  // Self time (an event's duration less the events nested in it on the same host thread, a kernel or copy
  // counting as nested in the host span that waited for it), summed over threads.
  double host_us = 0;            // scheduling, codegen, Jit, allocations and anything else on the host
  double compile_us = 0;         // compiles and loads of cached binaries
  double device_us = 0;          // kernel runs, on the device's clock
  double copy_us = 0;            // host <-> device and device <-> device copies
  double wait_us = 0;            // host threads blocked on a compile: not in the split (the compile is)
};

// Reads a trace-event JSON ({"traceEvents": [...]} or a bare array). Throws std::runtime_error naming what
// is malformed.
ProfileSummary Summarize(const nlohmann::json& trace);

// The printed report: the split, then the |top| kernels (count, total, mean, share of device time).
std::string FormatSummary(const ProfileSummary& summary, size_t top);

}  // namespace tg::tools

#endif  // TG_TOOLS_PROFILE_SUMMARY_H_
