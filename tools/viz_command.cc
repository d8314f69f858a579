#include "tools/viz_command.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tg::tools {

const char kVizUsage[] =
    "usage: tg viz [--out PAGE.html] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM (any binary built on tinygrad-cc) with VIZ=1. At exit it writes one self-contained HTML\n"
    "page: each realize's tensor graph, every compiler pass's graph before and after, the schedule with its\n"
    "memory plan, and each kernel's opts and source (docs/viz.md). Open it in any browser; nothing is fetched.\n"
    "\n"
    "options:\n"
    "  --out PAGE.html  where the page goes (default tg_viz.html)\n";

namespace {

// Relative paths are the user's: `bazel run` starts in the runfiles tree.
std::string UserDirectory() {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd != nullptr) return cwd;
  char buf[4096];
  return getcwd(buf, sizeof(buf)) != nullptr ? std::string(buf) : ".";
}

std::string Absolute(const std::string& p) { return p.empty() || p[0] == '/' ? p : UserDirectory() + "/" + p; }

// Runs |argv| in the user's directory with VIZ=1 and TG_VIZ_OUT=|page|; the exit status, or -1 and |why|.
int RunWithViz(const std::vector<std::string>& argv, const std::string& page, std::string* why) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string dir = UserDirectory();
  pid_t pid = fork();
  if (pid < 0) return *why = std::string("fork: ") + std::strerror(errno), -1;
  if (pid == 0) {
    setenv("VIZ", "1", 1);
    setenv("TG_VIZ_OUT", page.c_str(), 1);
    if (chdir(dir.c_str()) != 0) _exit(127);
    execvp(args[0], args.data());
    _exit(127);  // the parent reports it: nothing of this process's state is safe to use after fork
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return *why = std::string("waitpid: ") + std::strerror(errno), -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

bool ParseVizArgs(const std::vector<std::string>& args, VizOptions* o, std::string* error) {
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) {
      o->out = args[++i];
    } else {
      *error = "unknown option '" + args[i] + "' (the program and its arguments go after --)";
      return false;
    }
  }
  if (i + 1 >= args.size()) {
    *error = "no program to run: tg viz [--out PAGE.html] -- PROGRAM [ARGS...]";
    return false;
  }
  o->program.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  return true;
}

int VizCommand(const VizOptions& options, std::ostream& out, std::ostream& err) {
  std::string page = Absolute(options.out);
  std::vector<std::string> argv = options.program;
  if (argv[0].find('/') != std::string::npos) argv[0] = Absolute(argv[0]);
  unlink(page.c_str());  // a page left from an earlier run must not pass for this one's
  std::string why;
  int status = RunWithViz(argv, page, &why);
  if (status < 0) return err << "tg viz: " << why << "\n", 1;
  if (status == 127) err << "tg viz: " << argv[0] << " could not be run (not found, or not executable)\n";
  struct stat st;
  if (stat(page.c_str(), &st) != 0) {
    err << "tg viz: " << argv[0] << " exited " << status << " and wrote no page at " << page
        << " (it realized no tensors, or ended without running its exit handlers)\n";
    return status != 0 ? status : 1;
  }
  out << "VIZ page: " << page << " (" << st.st_size / 1024 << " KiB); open it in a browser\n";
  return status;
}

}  // namespace tg::tools
