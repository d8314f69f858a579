// cts_main.cc: the tg-cts command line: load a plugin .so, run the tiers, print, report, exit.
//   cts /path/to/libtg_x.so [--device N] [--filter REGEX] [--xfail FILE] [--report out.json]
//       [--kernels DIR] [--host-corpus DIR] [--timeout-s N] [--isolate] [--list]
// Exit 0 when no case failed, 1 on a FAIL, 2 on a usage error, 3 on a crash, 4 on a hang.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "plugins/cts/cts_report.h"
#include "plugins/cts/cts_runner.h"
#include "plugins/cts/plugin_handle.h"
#include "plugins/cts/tiers.h"

namespace tg_cts {
namespace {

constexpr char kUsage[] =
    "usage: cts PLUGIN.so [--device N] [--filter REGEX] [--xfail FILE] [--report OUT.json]\n"
    "                     [--kernels DIR] [--host-corpus DIR] [--timeout-s N] [--isolate] [--list]\n"
    "The tinygrad-cc plugin conformance suite (tiers T0 ABI/load .. T4 robustness).\n"
    "--kernels: the hand-written corpus (plugins/cts/kernels); --host-corpus: the directory of the\n"
    "host corpus's manifest.json (//tools/cts_corpus:host_corpus). Both default to the runfiles.\n"
    "--isolate runs each case in its own process: a crash fails one case, not the run.\n"
    "TG_CTS_VERIFY_XFAILS=1 makes an unexpected pass of an xfail-listed case a failure.\n";

struct Args {
  std::string plugin, xfail, report;
  RunOptions run;
  Plugin config;
  bool list = false;
};

// `bazel run` starts us in the runfiles tree; relative paths the user typed mean their directory.
std::string FromUserDir(const std::string& path) {
  const char* dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || dir == nullptr || dir[0] == '\0') return path;
  return std::string(dir) + "/" + path;
}

bool Parse(int argc, char** argv, Args* a) {
  a->config.argv0 = argv[0];
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--list") {
      a->list = true;
    } else if (arg == "--isolate") {
      a->run.isolate = true;
    } else if (arg == "--child") {  // internal: one case, run by an --isolate parent
      a->run.child = true;
    } else if (arg == "--only" && value(&v)) {
      a->run.only = v;
    } else if (arg == "--device" && value(&v)) {
      a->config.device_ordinal = static_cast<uint32_t>(std::stoul(v));
    } else if (arg == "--timeout-s" && value(&v)) {
      a->run.timeout_s = static_cast<unsigned>(std::stoul(v));
    } else if (arg == "--filter" && value(&v)) {
      a->run.filter = v;
    } else if (arg == "--xfail" && value(&v)) {
      a->xfail = FromUserDir(v);
    } else if (arg == "--report" && value(&v)) {
      a->report = FromUserDir(v);
    } else if (arg == "--kernels" && value(&v)) {
      a->config.kernels_dir = FromUserDir(v);
    } else if (arg == "--host-corpus" && value(&v)) {
      a->config.host_corpus_dir = FromUserDir(v);
    } else if (arg[0] != '-' && a->plugin.empty()) {
      a->plugin = FromUserDir(arg);
    } else {
      return false;
    }
  }
  a->run.child_args = {argv[0], a->plugin, "--device", std::to_string(a->config.device_ordinal),
                       "--timeout-s", std::to_string(a->run.timeout_s)};
  if (!a->config.kernels_dir.empty()) {
    a->run.child_args.insert(a->run.child_args.end(), {"--kernels", a->config.kernels_dir});
  }
  if (!a->config.host_corpus_dir.empty()) {
    a->run.child_args.insert(a->run.child_args.end(), {"--host-corpus", a->config.host_corpus_dir});
  }
  const char* verify = std::getenv("TG_CTS_VERIFY_XFAILS");
  a->run.verify_xfails = verify != nullptr && std::string(verify) == "1";
  return a->list || !a->plugin.empty();
}

// The host corpus's cases come from its manifest, so the list depends on |config| (--host-corpus);
// an --isolate child is given the same flags and lists the same cases.
std::vector<Case> AllCases(const Plugin& config) {
  std::vector<Case> all;
  for (std::vector<Case> tier : {Tier0AbiCases(), Tier1MemoryCases(), Tier2ProgramCases(),
                                 Tier2HostKernelCases(config), Tier3ExecutionCases(), Tier3OrderingCases(),
                                 Tier4RobustnessCases()}) {
    all.insert(all.end(), tier.begin(), tier.end());
  }
  return all;
}

void PrintHeader(const Plugin& p) {
  std::cout << "tg-cts: " << p.path << "\n";
  if (p.api == nullptr) {
    std::cout << "  did not load: " << p.load_error << "\n";
    return;
  }
  std::cout << "  plugin " << p.api->plugin_name << " " << (p.api->plugin_version ? p.api->plugin_version : "")
            << ", ABI " << p.api->abi_major << "." << p.api->abi_minor << ", " << p.device_count
            << " device(s)" << (p.device_count == 0 ? ": " + p.no_device_reason : "") << "\n";
  for (const DeviceSummary& d : p.devices) {
    std::cout << "  device " << d.ordinal << (d.ordinal == p.device_ordinal ? " (tested)" : "") << ": "
              << (d.error.empty() ? d.name + " [" + d.arch + "]" : d.error) << "\n";
  }
}

int Main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) return std::cerr << kUsage, 2;
  std::vector<Case> cases = AllCases(a.config);
  if (a.list) {
    for (const Case& c : cases) std::cout << "T" << c.tier << " " << c.name << "\n";
    return 0;
  }
  std::string error;
  if (!a.xfail.empty() && !ReadXfailFile(a.xfail, &a.run.xfails, &error)) return std::cerr << error << "\n", 2;
  Plugin& p = a.config;
  p.path = a.plugin;
  OpenPlugin(&p);
  if (p.api != nullptr) {
    if (std::string why = SurveyDevices(&p); !why.empty()) p.load_error = why, p.api = nullptr;
  }
  if (p.api != nullptr && p.device_count > 0 && p.device_ordinal >= p.device_count) {
    std::cerr << "--device " << p.device_ordinal << ": the plugin has " << p.device_count << " device(s)\n";
    return 2;
  }
  if (a.run.child) return RunCases(cases, p, a.run, std::cout), 0;
  PrintHeader(p);
  std::vector<CaseResult> results = RunCases(cases, p, a.run, std::cout);
  bool passed = PrintSummary(results, std::cout);
  if (!a.report.empty()) {
    if (!WriteReport(a.report, ReportJson(p, results), &error)) return std::cerr << error << "\n", 2;
    std::cout << "report: " << a.report << "\n";
  }
  return passed ? 0 : 1;
}

}  // namespace
}  // namespace tg_cts

int main(int argc, char** argv) { return tg_cts::Main(argc, argv); }
