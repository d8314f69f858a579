// bench_command.h: `tg bench`: runs the benchmark suite (//tools/bench:bench, found in tg's runfiles),
// writes its JSON report and compares it against a baseline report (README.md).
#ifndef TG_TOOLS_BENCH_COMMAND_H_
#define TG_TOOLS_BENCH_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/bench/report.h"

namespace tg::tools {

struct BenchOptions {
  std::vector<std::string> devices;  // empty: the default device
  std::string filter;                // regex over "<workload>/<device>"
  std::string json;                  // where the report goes (a temporary file when empty)
  std::string compare;               // baseline report; empty: no comparison
  std::string results;               // an existing report to compare instead of running the suite
  std::vector<std::string> peers;    // peer reports (tools/bench/run_peer.sh): print ours beside them
  std::string html;                  // where the drawn report goes (bench::BenchHtml); empty: none
  bench::GateOptions gate;           // --threshold, --alpha
  int reps = 0;                      // 0: each workload's own count
};

// Parses the arguments after `bench`. Returns false (with a message in |error|) on a bad one.
bool ParseBenchArgs(const std::vector<std::string>& args, BenchOptions* options, std::string* error);

// Compares |current_path| against |baseline_path|; prints the table to |out|. 0 when nothing regressed
// (bench::Judge's rule: below the threshold and, with repeated samples, significant), 1 when something
// did, 2 when a file cannot be read.
int CompareReports(const std::string& current_path, const std::string& baseline_path, const bench::GateOptions& gate,
                   std::ostream& out, std::ostream& err);

// Prints |current_path| beside the merged |peer_paths| as one Markdown table (bench::PrintPeerTable).
// 0, or 2 when a file cannot be read.
int PeerTable(const std::string& current_path, const std::vector<std::string>& peer_paths, std::ostream& out,
              std::ostream& err);

// Writes |current_path| (with the baseline and peers where given) as bench::BenchHtml to |html_path|.
// 0, or 2 when a file cannot be read or written.
int HtmlReport(const std::string& current_path, const BenchOptions& options, std::ostream& err);

// The whole subcommand. |argv0| locates the bench binary in tg's runfiles.
int BenchCommand(const std::string& argv0, const BenchOptions& options, std::ostream& out, std::ostream& err);

extern const char kBenchUsage[];

}  // namespace tg::tools

#endif  // TG_TOOLS_BENCH_COMMAND_H_
