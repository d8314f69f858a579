// profile_command.cc: argument parsing and file handling around profile_summary and profile_timeline.
#include "tools/profile_command.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "absl/strings/numbers.h"
#include "nlohmann/json.hpp"
#include "tools/profile_summary.h"
#include "tools/profile_timeline.h"

namespace tg::tools {

const char kProfileUsage[] =
    "usage: tg profile TRACE.json [--top N] [--html OUT.html]\n"
    "\n"
    "Reads a trace written by PROFILE=1 (TG_PROFILE_OUT names the file) and prints the time split (host,\n"
    "compile, device, copy) and the top N kernels by device time (default 10): count, total, mean, share.\n"
    "  --html OUT.html  also write the timeline as one self-contained page (wheel or drag to zoom, hover\n"
    "                   for an event's arguments); Perfetto and chrome://tracing open TRACE.json itself\n";

bool ParseProfileArgs(const std::vector<std::string>& args, ProfileOptions* options, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--html" && has_value) {
      options->html = args[++i];
    } else if (a == "--top" && has_value) {
      if (!absl::SimpleAtoi(args[++i], &options->top) || options->top == 0) {
        *error = "--top takes a positive whole number, not '" + args[i] + "'";
        return false;
      }
    } else if (a.rfind("--", 0) == 0) {
      *error = "unknown option or missing value: '" + a + "'";
      return false;
    } else if (options->trace.empty()) {
      options->trace = a;
    } else {
      *error = "one trace file at a time; got '" + options->trace + "' and '" + a + "'";
      return false;
    }
  }
  if (options->trace.empty()) *error = "no trace file given";
  return !options->trace.empty();
}

int ProfileCommand(const ProfileOptions& options, std::ostream& out, std::ostream& err) {
  std::ifstream file(options.trace, std::ios::binary);
  if (!file) {
    err << "tg profile: cannot read " << options.trace << "\n";
    return 1;
  }
  std::stringstream text;
  text << file.rdbuf();
  nlohmann::json trace;
  try {
    trace = nlohmann::json::parse(text.str());
    out << options.trace << ": " << FormatSummary(Summarize(trace), options.top);
  } catch (const std::exception& e) {  // nlohmann's parse errors and Summarize's malformed events
    err << "tg profile: " << options.trace << " is not a readable trace: " << e.what() << "\n";
    return 1;
  }
  if (options.html.empty()) return 0;
  std::ofstream page(options.html, std::ios::binary | std::ios::trunc);
  page << TimelineHtml(trace, options.trace);
  page.close();
  if (!page) {
    err << "tg profile: cannot write " << options.html << "\n";
    return 1;
  }
  out << "\ntimeline: " << options.html << "\n";
  return 0;
}

}  // namespace tg::tools
