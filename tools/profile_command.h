// profile_command.h: `tg profile TRACE.json`: reads a PROFILE=1 trace (docs/profile.md) and prints the top
// kernels and the host / compile / device / copy split; `--html OUT.html` also writes the timeline page.
#ifndef TG_TOOLS_PROFILE_COMMAND_H_
#define TG_TOOLS_PROFILE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace tg::tools {

extern const char kProfileUsage[];

struct ProfileOptions {
  std::string trace;
  std::string html;  // empty: no page
  size_t top = 10;
};

// Parses the arguments after "profile"; false with |error| set for bad ones.
bool ParseProfileArgs(const std::vector<std::string>& args, ProfileOptions* options, std::string* error);

// 0, or 1 after naming the unreadable or malformed file on |err|.
int ProfileCommand(const ProfileOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tg::tools

#endif  // TG_TOOLS_PROFILE_COMMAND_H_
