// timing.h: how every workload is timed (docs/benchmarks.md: the first run with compile included, then
// warm-up, then the median of the timed runs) and where its figures go: Google Benchmark counters
// for the console and the suite's Record list for --json.
#ifndef TG_TOOLS_BENCH_TIMING_H_
#define TG_TOOLS_BENCH_TIMING_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "tools/bench/report.h"

namespace tg::bench {

struct Timed {
  double first_s = 0;   // the first call: graph building, scheduling, codegen, C compile, run
  double median_s = 0;  // of the timed calls
  double min_s = 0;
  std::vector<double> times_s;  // each timed call, in run order
};

// Calls |run| once (the first run), |warmup| - 1 more times untimed (as the torch peer's bench()), then once
// per benchmark iteration, timed with a steady clock and handed to Google Benchmark as manual time.
// |run| must realize its outputs and wait for the device.
Timed TimeRuns(benchmark::State& state, const std::function<void()>& run, int warmup);
// The same for a run that measures itself (W8's children) and returns its seconds.
Timed TimeSelfTimedRuns(benchmark::State& state, const std::function<double()>& run, int warmup);

// |value| in |unit| is the workload's headline figure (from the median run). Sets the counters
// (<unit>, first_ms, median_ms, min_ms) and records "median" and "first" rows for the JSON report; the
// "median" row carries every timed run's figure in |unit| (a time scales with the run's seconds, a rate
// with their inverse), which `tg bench --compare` tests for significance.
void Publish(benchmark::State& state, const std::string& name, const std::string& device, const Timed& t,
             double value, const std::string& unit);

// A figure computed from |t|'s runs rather than measured by its own (W12's decode bound: the copy bandwidth
// over the bytes a token reads): a "median" row of |value| in the rate |unit|, with a sample per timed run
// scaled as |t|'s, and no "first" row and no counter.
void PublishDerivedRate(const std::string& name, const std::string& device, const Timed& t, double value,
                        const std::string& unit);

// A figure measured beside the timed runs, one sample per run (W12's decode against the bound of a copy
// made just before each run): a "median" row of the samples' median in |unit|, no "first" row and no counter.
void PublishSamples(const std::string& name, const std::string& device, std::vector<double> samples,
                    const std::string& unit);

// For a workload that cannot run here (a model or a file is missing): marks the benchmark skipped with
// |reason| and records a "skipped" row, so the report says why instead of showing a figure.
void PublishSkipped(benchmark::State& state, const std::string& name, const std::string& device,
                    const std::string& unit, const std::string& reason);

// Every row Publish recorded in this process, in run order.
const std::vector<Record>& PublishedRecords();

double Median(std::vector<double> v);
double SecondsSince(std::chrono::steady_clock::time_point t0);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_TIMING_H_
