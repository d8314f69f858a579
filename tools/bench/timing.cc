#include "tools/bench/timing.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>

namespace tg::bench {
namespace {

std::mutex records_mu;
std::vector<Record>& Records() {
  static auto* records = new std::vector<Record>();
  return *records;
}

// Each timed run's figure for a rate: |value| (the median run's) scaled by median / run time.
std::vector<double> RateSamples(const Timed& t, double value) {
  std::vector<double> samples;
  for (double s : t.times_s)
    if (s > 0 && t.median_s > 0) samples.push_back(value * t.median_s / s);
  return samples;
}

}  // namespace

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Timed TimeSelfTimedRuns(benchmark::State& state, const std::function<double()>& run, int warmup) {
  Timed t;
  t.first_s = run();
  for (int i = 1; i < warmup; ++i) run();
  std::vector<double> times;
  for (auto _ : state) {
    double s = run();
    state.SetIterationTime(s);
    times.push_back(s);
  }
  t.median_s = Median(times);
  t.min_s = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  t.times_s = std::move(times);
  return t;
}

Timed TimeRuns(benchmark::State& state, const std::function<void()>& run, int warmup) {
  return TimeSelfTimedRuns(
      state,
      [&] {
        auto start = std::chrono::steady_clock::now();
        run();
        return SecondsSince(start);
      },
      warmup);
}

void Publish(benchmark::State& state, const std::string& name, const std::string& device, const Timed& t,
             double value, const std::string& unit) {
  state.counters[unit] = value;
  state.counters["first_ms"] = t.first_s * 1e3;
  state.counters["median_ms"] = t.median_s * 1e3;
  state.counters["min_ms"] = t.min_s * 1e3;
  Record median{name, device, "median", value, unit};
  bool time_unit = LowerIsBetter(unit);
  for (double s : t.times_s)
    if (s > 0 && t.median_s > 0) median.samples.push_back(time_unit ? value * s / t.median_s : value * t.median_s / s);
  std::lock_guard<std::mutex> lock(records_mu);
  Records().push_back(std::move(median));
  Records().push_back({name, device, "first", t.first_s * 1e3, "ms"});
}

void PublishDerivedRate(const std::string& name, const std::string& device, const Timed& t, double value,
                        const std::string& unit) {
  Record median{name, device, "median", value, unit};
  median.samples = RateSamples(t, value);
  std::lock_guard<std::mutex> lock(records_mu);
  Records().push_back(std::move(median));
}

void PublishSamples(const std::string& name, const std::string& device, std::vector<double> samples,
                    const std::string& unit) {
  Record median{name, device, "median", Median(samples), unit};
  median.samples = std::move(samples);
  std::lock_guard<std::mutex> lock(records_mu);
  Records().push_back(std::move(median));
}

void PublishSkipped(benchmark::State& state, const std::string& name, const std::string& device,
                    const std::string& unit, const std::string& reason) {
  state.SkipWithError(("skipped: " + reason).c_str());
  std::lock_guard<std::mutex> lock(records_mu);
  Records().push_back({name, device, "median", 0, unit, reason});
}

const std::vector<Record>& PublishedRecords() { return Records(); }

}  // namespace tg::bench
