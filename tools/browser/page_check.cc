#include "tools/browser/page_check.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "nlohmann/json.hpp"

namespace tg::browser {
namespace {

// In a test's runfiles the working directory is the workspace root, so the data dependency is here.
constexpr const char* kScript = "tools/browser/headless_browser.py";
constexpr int kNoBrowserExit = 3;

std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Run {
  int exit_code = -1;
  std::string output;
};

Run RunScript(const std::string& arguments) {
  std::string command = "/usr/bin/python3 " + std::string(kScript) + " " + arguments;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  Run run;
  std::array<char, 4096> chunk;
  size_t n;
  while ((n = fread(chunk.data(), 1, chunk.size(), pipe)) > 0) run.output.append(chunk.data(), n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace

std::optional<std::string> NoBrowserReason() {
  if (access("/usr/bin/python3", X_OK) != 0) return "no /usr/bin/python3 to drive the browser";
  Run run = RunScript("find 2>&1");
  if (run.exit_code == kNoBrowserExit) return run.output;
  if (run.exit_code != 0) return "the browser check script failed: " + run.output;
  return std::nullopt;
}

PageReport CheckPage(const std::string& html_path, const std::string& screenshot_png, int width, int height) {
  std::string arguments = "check " + Quoted(html_path) + " --size " + std::to_string(width) + "x" +
                          std::to_string(height);
  if (!screenshot_png.empty()) arguments += " --screenshot " + Quoted(screenshot_png);
  Run run = RunScript(arguments);
  if (run.exit_code != 0) {
    throw std::runtime_error("headless_browser.py exited " + std::to_string(run.exit_code) + ": " +
                             run.output);
  }
  nlohmann::json j = nlohmann::json::parse(run.output);
  PageReport report;
  report.errors = j.at("errors").get<std::vector<std::string>>();
  report.external_refs = j.at("external_refs").get<std::vector<std::string>>();
  if (!j.at("rendered").is_null()) report.rendered = j.at("rendered").get<std::string>();
  if (j.contains("inked_fraction")) report.inked_fraction = j.at("inked_fraction").get<double>();
  return report;
}

}  // namespace tg::browser
