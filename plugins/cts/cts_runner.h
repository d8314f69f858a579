// cts_runner.h: runs the selected cases one by one and tallies PASS / FAIL / SKIP / XFAIL / XPASS.
// The CTS's driver loop (docs/plugins.md): filters, expected-failure lists, crash and hang guards.
#ifndef TG_PLUGINS_CTS_CTS_RUNNER_H_
#define TG_PLUGINS_CTS_CTS_RUNNER_H_

#include <ostream>
#include <string>
#include <vector>

#include "plugins/cts/cts_case.h"
#include "plugins/cts/plugin_handle.h"

namespace tg_cts {

enum class Outcome { kPass, kFail, kSkip, kXFail, kXPass };
const char* OutcomeName(Outcome o);  // "PASS", "FAIL", "SKIP", "XFAIL", "XPASS"

struct CaseResult {
  int tier = 0;
  std::string name;
  Outcome outcome = Outcome::kPass;
  std::string detail;  // the failure message or skip reason
  double seconds = 0;
};

struct RunOptions {
  std::string filter;               // ECMAScript regex searched in case names; "" = all
  std::vector<std::string> xfails;  // regexes matched against whole case names
  bool verify_xfails = false;       // TG_CTS_VERIFY_XFAILS=1: an XPASS counts as a failure
  unsigned timeout_s = 300;         // per case; a hang ends the run with exit code 4
  // --isolate: each case runs in a fresh process (this binary again, with |child_args| plus
  // --only NAME --child), so a crash or hang fails that case only and the run goes on.
  bool isolate = false;
  std::vector<std::string> child_args;
  std::string only;                 // --only: exactly this case (what an isolated child runs)
  bool child = false;               // --child: print one machine-readable result line per case
};

// Reads an xfail file: one case name (or regex) per line, '#' starts a comment.
bool ReadXfailFile(const std::string& path, std::vector<std::string>* out, std::string* error);

// Runs every case whose name matches |opt.filter|, printing one line per case to |out|. Without
// --isolate, a case that crashes the process (SIGSEGV, SIGABRT, ...) or outlives |opt.timeout_s|
// is reported on stdout by a signal handler, which then ends the process (exit 3 = crash, 4 =
// timeout); with --isolate it is that case's FAIL.
std::vector<CaseResult> RunCases(const std::vector<Case>& cases, const Plugin& plugin,
                                 const RunOptions& opt, std::ostream& out);

struct Counts {
  int pass = 0, fail = 0, skip = 0, xfail = 0, xpass = 0;
};
Counts CountTier(const std::vector<CaseResult>& results, int tier);  // tier -1: all tiers
const char* TierTitle(int tier);                                      // "T0 ABI/load", ...

// One summary line per tier and one overall; returns whether the run passed (no FAIL).
bool PrintSummary(const std::vector<CaseResult>& results, std::ostream& out);

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_CTS_RUNNER_H_
