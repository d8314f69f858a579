// app_runner.h: runs one of //apps's programs from the test's runfiles and captures what it prints, so the
// app tests assert the figures a user reads (accuracy, loss, values), not the libraries behind them.
#ifndef TG_TESTS_APPS_APP_RUNNER_H_
#define TG_TESTS_APPS_APP_RUNNER_H_

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace tg::apps_test {

struct AppRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Single quotes for the shell: 'it'\''s'.
inline std::string ShellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs apps/NAME (a data dependency of the test) with |args|, in the runfiles root.
inline AppRun RunApp(const std::string& name, const std::vector<std::string>& args) {
  std::string cmd = "apps/" + name;
  for (const std::string& a : args) cmd += " " + ShellQuoted(a);
  cmd += " 2>&1";
  AppRun run;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return run;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) run.output.append(buf, n);
  int status = pclose(p);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// The first group of the last match of |pattern| in |text|, as a number; nullopt without a match.
inline std::optional<double> LastNumber(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  std::optional<double> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    found = std::strtod((*it)[1].str().c_str(), nullptr);
  return found;
}

// The first group of the first match, as a number; nullopt without a match.
inline std::optional<double> FirstNumber(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern))) return std::nullopt;
  return std::strtod(m[1].str().c_str(), nullptr);
}

inline std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

}  // namespace tg::apps_test

#endif  // TG_TESTS_APPS_APP_RUNNER_H_
