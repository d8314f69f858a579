#include "tools/bench_command.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "tools/bench/html_report.h"
#include "tools/bench/report.h"
#include "tools/cpp/runfiles/runfiles.h"

extern char** environ;

namespace tg::tools {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;

// TG_BENCH_BINARY, else the bench binary in tg's runfiles (bazel run / bazel-bin), else beside tg.
std::string FindBenchBinary(const std::string& argv0) {
  if (const char* env = std::getenv("TG_BENCH_BINARY"); env != nullptr && *env != '\0') return env;
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::Create(argv0, &error));
  if (runfiles != nullptr) {
    std::string path = runfiles->Rlocation("tinygrad_cc/tools/bench/bench");
    if (!path.empty() && access(path.c_str(), X_OK) == 0) return path;
  }
  std::filesystem::path beside = std::filesystem::path(argv0).parent_path() / "bench" / "bench";
  return access(beside.c_str(), X_OK) == 0 ? beside.string() : "";
}

int RunAndWait(const std::vector<std::string>& args, std::ostream& err) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    err << "tg bench: cannot start " << args[0] << "\n";
    return 2;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string JoinCommas(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& d : v) s += (s.empty() ? "" : ",") + d;
  return s;
}

// A positive number no larger than |max|, whole string.
bool ParseFraction(const std::string& v, double* out, double max) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !(d > 0) || d > max) return false;
  *out = d;
  return true;
}

}  // namespace

const char kBenchUsage[] =
    "usage: tg bench [--device D[,D...]|all] [--filter REGEX] [--reps N] [--json out.json]\n"
    "                [--compare baseline.json [--threshold 0.9] [--alpha 0.05]] [--peers peers.json[,...]]\n"
    "                [--html report.html] [--results current.json]\n"
    "  runs the benchmark suite W1-W12 (//tools/bench), writes the report (name, device, metric, value,\n"
    "  unit, each timed run's figure) with --json; --compare prints each figure's ratio against the\n"
    "  baseline (>1 = better, for times too) and exits 1 when one regressed: its ratio is below\n"
    "  --threshold and a Mann-Whitney U test over both reports' samples gives p < --alpha (with fewer\n"
    "  than 5 timed runs a side, the threshold alone decides: use --reps=20 for a gate on a noisy machine);\n"
    "  each line says which it was. --peers prints one Markdown table of ours beside the peers' figures\n"
    "  (tools/bench/run_peer.sh's report) with ours/peer ratios; --html draws the report, the baseline\n"
    "  and the peers as one self-contained page of bars with ratio labels; --results uses an existing\n"
    "  report instead of running. TG_BENCH_BINARY overrides where the bench binary is found.\n";

bool ParseBenchArgs(const std::vector<std::string>& args, BenchOptions* o, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], v;
    size_t eq = a.find('=');
    bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) v = a.substr(eq + 1), a = a.substr(0, eq);
    auto take = [&]() -> bool {  // "--flag value" or "--flag=value"
      if (inline_value) return true;
      if (i + 1 >= args.size()) return *error = a + " needs a value", false;
      v = args[++i];
      return true;
    };
    if (a == "--device" && take()) {
      for (size_t s = 0; s <= v.size();) {
        size_t e = v.find(',', s);
        if (e == std::string::npos) e = v.size();
        if (e > s) o->devices.push_back(v.substr(s, e - s));
        s = e + 1;
      }
    } else if (a == "--filter" && take()) o->filter = v;
    else if (a == "--json" && take()) o->json = v;
    else if (a == "--compare" && take()) o->compare = v;
    else if (a == "--results" && take()) o->results = v;
    else if (a == "--html" && take()) o->html = v;
    else if (a == "--peers" && take()) {
      for (size_t s = 0; s <= v.size();) {
        size_t e = v.find(',', s);
        if (e == std::string::npos) e = v.size();
        if (e > s) o->peers.push_back(v.substr(s, e - s));
        s = e + 1;
      }
    }
    else if (a == "--reps" && take()) o->reps = std::atoi(v.c_str());
    else if (a == "--threshold" && take()) {
      if (!ParseFraction(v, &o->gate.threshold, /*max=*/1e9)) return *error = "bad --threshold " + v + " (a ratio > 0)", false;
    } else if (a == "--alpha" && take()) {
      if (!ParseFraction(v, &o->gate.alpha, /*max=*/1) || o->gate.alpha >= 1)
        return *error = "bad --alpha " + v + " (a significance level in (0, 1), e.g. 0.05)", false;
    } else if (error->empty()) return *error = "unknown argument '" + args[i] + "'", false;
    if (!error->empty()) return false;
  }
  if (!o->results.empty() && o->compare.empty() && o->peers.empty() && o->html.empty())
    return *error = "--results needs --compare, --peers or --html", false;
  return true;
}

int CompareReports(const std::string& current_path, const std::string& baseline_path, const bench::GateOptions& gate,
                   std::ostream& out, std::ostream& err) {
  try {
    bench::Report current = bench::ReadReportFile(current_path);
    bench::Report baseline = bench::ReadReportFile(baseline_path);
    bench::CompareResult result = bench::Compare(current, baseline, gate);
    bench::PrintComparison(result, gate, out);
    return result.any_regressed ? 1 : 0;
  } catch (const std::exception& e) {
    err << "tg bench: " << e.what() << "\n";
    return 2;
  }
}

int PeerTable(const std::string& current_path, const std::vector<std::string>& peer_paths, std::ostream& out,
              std::ostream& err) {
  try {
    bench::Report current = bench::ReadReportFile(current_path), peers;
    for (const std::string& path : peer_paths) {
      bench::Report r = bench::ReadReportFile(path);
      peers.records.insert(peers.records.end(), r.records.begin(), r.records.end());
    }
    bench::PrintPeerTable(current, peers, out);
    return 0;
  } catch (const std::exception& e) {
    err << "tg bench: " << e.what() << "\n";
    return 2;
  }
}

int HtmlReport(const std::string& current_path, const BenchOptions& o, std::ostream& err) {
  try {
    bench::Report current = bench::ReadReportFile(current_path), baseline, peers;
    bench::HtmlInputs in;
    in.ours = &current;
    in.gate = o.gate;
    if (!o.compare.empty()) baseline = bench::ReadReportFile(o.compare), in.baseline = &baseline;
    for (const std::string& path : o.peers) {
      bench::Report r = bench::ReadReportFile(path);
      peers.records.insert(peers.records.end(), r.records.begin(), r.records.end());
    }
    if (!o.peers.empty()) in.peers = &peers;
    std::ofstream out(o.html);
    if (!(out << bench::BenchHtml(in)) || !out.flush()) {
      err << "tg bench: cannot write " << o.html << "\n";
      return 2;
    }
    return 0;
  } catch (const std::exception& e) {
    err << "tg bench: " << e.what() << "\n";
    return 2;
  }
}

int BenchCommand(const std::string& argv0, const BenchOptions& o, std::ostream& out, std::ostream& err) {
  std::string report = o.results;
  if (report.empty()) {
    std::string bench = FindBenchBinary(argv0);
    if (bench.empty()) {
      err << "tg bench: the bench binary is not in tg's runfiles; build //tools/bench or set TG_BENCH_BINARY\n";
      return 2;
    }
    report = !o.json.empty() ? o.json
                             : (std::filesystem::temp_directory_path() / ("tg_bench_" + std::to_string(getpid()) + ".json")).string();
    std::vector<std::string> args = {bench, "--json=" + report};
    if (!o.devices.empty()) args.push_back("--device=" + JoinCommas(o.devices));
    if (!o.filter.empty()) args.push_back("--filter=" + o.filter);
    if (o.reps > 0) args.push_back("--reps=" + std::to_string(o.reps));
    out.flush();
    if (int rc = RunAndWait(args, err); rc != 0) {
      err << "tg bench: the suite exited with status " << rc << "\n";
      return rc;
    }
  }
  int rc = o.compare.empty() ? 0 : CompareReports(report, o.compare, o.gate, out, err);
  if (!o.peers.empty()) rc = std::max(rc, PeerTable(report, o.peers, out, err));
  if (!o.html.empty()) rc = std::max(rc, HtmlReport(report, o, err));
  if (o.json.empty() && o.results.empty()) std::filesystem::remove(report);
  return rc;
}

}  // namespace tg::tools
