// viz_command.h: `tg viz [--out PAGE.html] -- PROGRAM ARGS...`: runs a program with VIZ=1 and says where its
// page is (docs/viz.md). The program writes the page itself, at exit (compiler/viz/viz_page.h).
#ifndef TG_TOOLS_VIZ_COMMAND_H_
#define TG_TOOLS_VIZ_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace tg::tools {

extern const char kVizUsage[];

struct VizOptions {
  std::string out = "tg_viz.html";  // relative to where `tg` was started (bazel run: the user's directory)
  std::vector<std::string> program;  // PROGRAM ARGS...
};

// Parses the arguments after "viz"; false with |error| set for bad ones.
bool ParseVizArgs(const std::vector<std::string>& args, VizOptions* options, std::string* error);

// Runs the program with VIZ=1 and TG_VIZ_OUT set and waits for it. Returns its exit status, or 1 when it
// wrote no page (or could not be started), saying so on |err|; prints the page's path on |out|.
int VizCommand(const VizOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tg::tools

#endif  // TG_TOOLS_VIZ_COMMAND_H_
