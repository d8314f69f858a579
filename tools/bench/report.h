// report.h: the benchmark suite's results as data: records, their JSON file, and the comparison of a
// run against a baseline that `tg bench --compare` prints (README.md). No timing here: it is pure
// data handling so a small unit test can cover it.
#ifndef TG_TOOLS_BENCH_REPORT_H_
#define TG_TOOLS_BENCH_REPORT_H_

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tg::bench {

// One figure of one workload on one device, e.g. {"W1_matmul_1024", "CPU", "median", 9.4, "GFLOP/s"}.
// |metric| says which run it comes from: "median" (the headline figure), "first" (compile included).
struct Record {
  std::string name;
  std::string device;
  std::string metric;
  double value = 0;
  std::string unit;
  // Why there is no figure (a model or a peer is not installed); empty when measured. A skipped record
  // is reported as such, never as a value.
  std::string skipped;
  // The figure of each timed run, in |unit| (a "median" record's value is their median). A comparison
  // with samples on both sides tests whether a difference is more than noise.
  std::vector<double> samples = {};
};

struct Report {
  std::map<std::string, std::string> context;  // host, date, build mode...: shown, never compared
  std::vector<Record> records;
};

// Times ("ms", "ms/iter", "us/op", "s"...) are better when lower; rates (GFLOP/s, GB/s, steps/s) when higher.
bool LowerIsBetter(const std::string& unit);

std::string ToJson(const Report& report);
// Throws tg::Error naming |what| (a path, for messages) when the text is not a report.
Report FromJson(const std::string& text, const std::string& what);
Report ReadReportFile(const std::string& path);
void WriteReportFile(const Report& report, const std::string& path);

// Fewer timed runs than this on either side and a comparison judges by the threshold alone: with four
// or fewer values per side no split is significant at 5%.
constexpr size_t kMinSamplesForTest = 5;

// How the gate judges a record: "regressed" needs the ratio below the threshold AND, where both sides
// have repeated samples, a Mann-Whitney U test saying the difference is more than noise.
struct GateOptions {
  double threshold = 0.9;
  double alpha = 0.05;  // the U test's significance level
};

// A record of the current run matched with the baseline's by (name, device, metric).
// ratio > 1 means better than the baseline whatever the unit's direction.
struct Comparison {
  Record current;
  double baseline = 0;
  double ratio = 0;
  bool tested = false;  // both sides had kMinSamplesForTest samples, so p_value is meaningful
  double p_value = 1;   // two-sided Mann-Whitney U over the samples
  bool regressed = false;
  // Why: "regressed: below the threshold and significant", "noise: below the threshold, not significant",
  // "regressed: below the threshold (threshold only: too few samples)", "" when fine.
  std::string verdict;
};

struct CompareResult {
  std::vector<Comparison> rows;
  std::vector<Record> only_current;   // new workloads: reported, not a failure
  std::vector<Record> only_baseline;  // filtered out or not run: reported, not a failure
  std::vector<Record> skipped;        // skipped in the current run: reported with the reason, not a failure
  bool any_regressed = false;
};

CompareResult Compare(const Report& current, const Report& baseline, const GateOptions& gate);
void PrintComparison(const CompareResult& result, const GateOptions& gate, std::ostream& out);

// One Markdown table of a run beside its peers (tools/bench/run_peer.sh's report, same session): a row per
// workload and device of |ours| ("median" records; "first" as a column), then the workloads only the peers
// ran; a column per peer device ("torch", "torch 2T", "ort 1T", ...), each cell the peer's figure and
// ours / peer as "(0.84x)", > 1 = ours better whatever the unit's direction. Skipped records show as
// "skipped" in their cell and, with the reason, in a list under the table.
void PrintPeerTable(const Report& ours, const Report& peers, std::ostream& out);

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_REPORT_H_
