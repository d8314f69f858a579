// cts_runner.cc: the case loop, xfail matching and the crash/hang guards.
#include "plugins/cts/cts_runner.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <fstream>
#include <regex>

namespace tg_cts {
namespace {

// The case in progress, for the signal handlers (which may only use async-signal-safe calls).
char g_current[256] = "";
bool g_child = false;  // an isolated child: the parent reads the FAIL line and carries on

void WriteStr(const char* s) {
  ssize_t ignored = write(STDOUT_FILENO, s, strlen(s));
  (void)ignored;
}

void OnCrash(int sig) {
  WriteStr("\nFAIL  ");
  WriteStr(g_current);
  WriteStr(": the plugin crashed the process (");
  WriteStr(strsignal(sig));  // not formally async-signal-safe; the process is dying anyway
  WriteStr(")\n");
  if (!g_child) WriteStr("tg-cts: stopped; no report written. --isolate runs each case in its own process.\n");
  _exit(3);
}

void OnTimeout(int) {
  WriteStr("\nFAIL  ");
  WriteStr(g_current);
  WriteStr(": timed out (--timeout-s)\n");
  if (!g_child) WriteStr("tg-cts: stopped; no report written. --isolate runs each case in its own process.\n");
  _exit(4);
}

void InstallGuards() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, OnCrash);
  signal(SIGALRM, OnTimeout);
}

bool Matches(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns) {
    if (std::regex_match(name, std::regex(p))) return true;
  }
  return false;
}

// Runs the body, mapping our exceptions to an outcome before expectations are applied.
CaseResult RunOne(const Case& c, const Plugin& plugin) {
  CaseResult r{c.tier, c.name, Outcome::kPass, "", 0};
  auto start = std::chrono::steady_clock::now();
  try {
    c.run(plugin);
  } catch (const SkipCase& s) {
    r.outcome = Outcome::kSkip;
    r.detail = s.reason;
  } catch (const CaseFailure& f) {
    r.outcome = Outcome::kFail;
    r.detail = f.message;
  } catch (const std::exception& e) {
    r.outcome = Outcome::kFail;
    r.detail = std::string("exception in the CTS: ") + e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

constexpr char kChildTag[] = "@@tg-cts-result\t";

// The child's result line: tag, outcome, seconds, detail (newlines flattened), for the parent.
void PrintChildResult(const CaseResult& r, std::ostream& out) {
  std::string detail = r.detail;
  for (char& c : detail) c = (c == '\n' || c == '\t') ? ' ' : c;
  out << kChildTag << OutcomeName(r.outcome) << "\t" << r.seconds << "\t" << detail << "\n";
}

// Reads the child's result line; without one, the child died: its last line says how.
CaseResult ParseChild(const Case& c, const std::string& text, int status) {
  CaseResult r{c.tier, c.name, Outcome::kFail, "", 0};
  size_t at = text.rfind(kChildTag);
  if (at != std::string::npos) {
    std::string line = text.substr(at + strlen(kChildTag));
    line = line.substr(0, line.find('\n'));
    size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    std::string name = line.substr(0, t1);
    for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kSkip}) {
      if (name == OutcomeName(o)) r.outcome = o;
    }
    r.seconds = std::atof(line.substr(t1 + 1, t2 - t1 - 1).c_str());
    r.detail = t2 == std::string::npos ? "" : line.substr(t2 + 1);
    return r;
  }
  size_t fail = text.rfind("FAIL  ");  // written by the child's OnCrash / OnTimeout
  size_t colon = fail == std::string::npos ? fail : text.find(": ", fail);
  if (colon != std::string::npos) {
    r.detail = text.substr(colon + 2, text.find('\n', colon) - colon - 2);
  } else if (WIFSIGNALED(status)) {
    r.detail = std::string("the plugin crashed the process (") + strsignal(WTERMSIG(status)) + ")";
  } else {
    r.detail = "the child exited " + std::to_string(WEXITSTATUS(status)) + " without a result";
  }
  return r;
}

// Runs |c| in a fresh process: this binary again, exec'd, so no plugin state (driver threads,
// contexts) is shared through fork.
CaseResult RunIsolated(const Case& c, const RunOptions& opt) {
  int fds[2];
  if (pipe(fds) != 0) return {c.tier, c.name, Outcome::kFail, "pipe() failed", 0};
  std::vector<std::string> args = opt.child_args;
  args.insert(args.end(), {"--only", c.name, "--child"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return {c.tier, c.name, Outcome::kFail, "fork failed", 0};
  return ParseChild(c, text, status);
}

void ApplyExpectation(const RunOptions& opt, CaseResult* r) {
  if (!Matches(opt.xfails, r->name)) return;
  if (r->outcome == Outcome::kFail) {
    r->outcome = Outcome::kXFail;
  } else if (r->outcome == Outcome::kPass) {
    r->outcome = opt.verify_xfails ? Outcome::kFail : Outcome::kXPass;
    r->detail = "listed as an expected failure but passed: remove it from the xfail file";
  }
}

}  // namespace

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "PASS";
    case Outcome::kFail: return "FAIL";
    case Outcome::kSkip: return "SKIP";
    case Outcome::kXFail: return "XFAIL";
    case Outcome::kXPass: return "XPASS";
  }
  return "?";
}

const char* TierTitle(int tier) {
  static const char* const kTitles[] = {"T0 ABI/load", "T1 memory", "T2 programs", "T3 execution",
                                        "T4 robustness"};
  return tier >= 0 && tier < 5 ? kTitles[tier] : "all tiers";
}

bool ReadXfailFile(const std::string& path, std::vector<std::string>* out, std::string* error) {
  std::ifstream in(path);
  if (!in) return *error = "cannot read xfail file " + path, false;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    std::string pattern = line.substr(b, e - b + 1);
    try {
      std::regex check(pattern);
    } catch (const std::regex_error&) {
      return *error = "bad pattern in " + path + ": " + pattern, false;
    }
    out->push_back(pattern);
  }
  return true;
}

std::vector<CaseResult> RunCases(const std::vector<Case>& cases, const Plugin& plugin,
                                 const RunOptions& opt, std::ostream& out) {
  InstallGuards();
  g_child = opt.child;
  std::regex filter(opt.filter);
  std::vector<CaseResult> results;
  for (const Case& c : cases) {
    if (!opt.filter.empty() && !std::regex_search(c.name, filter)) continue;
    if (!opt.only.empty() && c.name != opt.only) continue;
    snprintf(g_current, sizeof g_current, "[T%d] %s", c.tier, c.name.c_str());
    out.flush();
    CaseResult r;
    if (opt.isolate) {
      r = RunIsolated(c, opt);
    } else {
      alarm(opt.timeout_s);
      r = RunOne(c, plugin);
      alarm(0);
    }
    if (opt.child) {
      PrintChildResult(r, out);
      continue;
    }
    ApplyExpectation(opt, &r);
    char time[32];
    snprintf(time, sizeof time, " (%.2f s)", r.seconds);
    out << "[T" << r.tier << "] " << OutcomeName(r.outcome) << "  " << r.name
        << (r.detail.empty() ? "" : ": " + r.detail) << (r.outcome == Outcome::kPass ? time : "")
        << "\n";
    results.push_back(std::move(r));
  }
  out.flush();
  return results;
}

Counts CountTier(const std::vector<CaseResult>& results, int tier) {
  Counts c;
  for (const CaseResult& r : results) {
    if (tier >= 0 && r.tier != tier) continue;
    switch (r.outcome) {
      case Outcome::kPass: ++c.pass; break;
      case Outcome::kFail: ++c.fail; break;
      case Outcome::kSkip: ++c.skip; break;
      case Outcome::kXFail: ++c.xfail; break;
      case Outcome::kXPass: ++c.xpass; break;
    }
  }
  return c;
}

bool PrintSummary(const std::vector<CaseResult>& results, std::ostream& out) {
  auto line = [&out](const char* title, const Counts& c) {
    char buf[160];
    snprintf(buf, sizeof buf, "%-14s %3d passed, %3d failed, %3d skipped, %d xfail, %d xpass", title,
             c.pass, c.fail, c.skip, c.xfail, c.xpass);
    out << buf;
  };
  out << "\n";
  for (int tier = 0; tier < 5; ++tier) {
    line(TierTitle(tier), CountTier(results, tier));
    out << "\n";
  }
  Counts all = CountTier(results, -1);
  line("overall", all);
  out << (all.fail == 0 ? "  => PASS\n" : "  => FAIL\n");
  return all.fail == 0;
}

}  // namespace tg_cts
