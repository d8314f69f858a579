// tg_main.cc: the `tg` command line (README.md): subcommand dispatch and usage.
// `devices`, `bench`, `compile`, `viz` and `profile`; each lives in its own tools/*_command file.
// `version` is one line, answered here.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "ir/version.h"
#include "plugins/abi/tg_plugin.h"
#include "tools/bench_command.h"
#include "tools/compile_command.h"
#include "tools/devices_command.h"
#include "tools/viz_command.h"
#include "tools/profile_command.h"

namespace {

constexpr char kUsage[] =
    "usage: tg <command>\n"
    "\n"
    "commands:\n"
    "  devices    list every plugin found (path, name, version, ABI, status, reason)\n"
    "             and each device (arch, vector width, compute units, memory)\n"
    "             --probe: load each plugin in a child process of its own, so one that\n"
    "             crashes or hangs in its driver is listed as [crashed] (signal, reason)\n"
    "  bench      run the benchmark suite W1-W12, write JSON, gate against a baseline (U test), draw HTML\n"
    "             (tg bench --help)\n"
    "  compile    MODEL.onnx -o FILE.tgjit: capture an ONNX model under tg::Jit and save it, so\n"
    "             tg::Jit::load runs it with no compiles (tg compile --help)\n"
    "  viz        [--out PAGE.html] -- PROGRAM ARGS...: run a program with VIZ=1 and say where its\n"
    "             page is: every compiler pass, the schedule, each kernel's source (tg viz --help)\n"
    "  profile    TRACE.json: a PROFILE=1 trace's top kernels and host / compile / device / copy split;\n"
    "             --html OUT.html writes its timeline page (tg profile --help)\n"
    "  version    tinygrad-cc's version and the plugin ABI this host loads (docs/releasing.md)\n"
    "\n"
    "options:\n"
    "  -h, --help show this help\n"
    "  --version  the same as tg version\n"
    "\n"
    "environment: TG_PLUGIN_PATH (extra plugin directories or .so files, ':'-separated),\n"
    "  TG_PLUGIN_TRACE=1 (log each plugin loading step), TG_DEVICE, DEBUG, PROFILE, TG_PROFILE_OUT\n";

// A plugin's probe child gets this long (PoCL compiling its builtins on a cold cache takes seconds).
constexpr int kProbeTimeoutSeconds = 120;

// The ABI beside the release: a vendor's plugin must match its major, whatever the release number says.
int VersionMain() {
  std::cout << "tinygrad-cc " << TG_VERSION_STRING << " (plugin ABI " << TG_ABI_MAJOR << "." << TG_ABI_MINOR
            << ")\n";
  return 0;
}

int BenchMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return std::cout << tg::tools::kBenchUsage, 0;
  tg::tools::BenchOptions options;
  std::string error;
  if (!tg::tools::ParseBenchArgs(args, &options, &error)) {
    std::cerr << "tg bench: " << error << "\n\n" << tg::tools::kBenchUsage;
    return 2;
  }
  return tg::tools::BenchCommand(argv[0], options, std::cout, std::cerr);
}

int CompileMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return std::cout << tg::tools::kCompileUsage, 0;
  tg::tools::CompileOptions options;
  std::string error;
  if (!tg::tools::ParseCompileArgs(args, &options, &error)) {
    std::cerr << "tg compile: " << error << "\n\n" << tg::tools::kCompileUsage;
    return 2;
  }
  return tg::tools::CompileCommand(options, std::cout, std::cerr);
}

int VizMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) return std::cout << tg::tools::kVizUsage, 0;
  tg::tools::VizOptions options;
  std::string error;
  if (!tg::tools::ParseVizArgs(args, &options, &error)) {
    std::cerr << "tg viz: " << error << "\n\n" << tg::tools::kVizUsage;
    return 2;
  }
  return tg::tools::VizCommand(options, std::cout, std::cerr);
}

int ProfileMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const std::string& a : args)
    if (a == "-h" || a == "--help") return std::cout << tg::tools::kProfileUsage, 0;
  tg::tools::ProfileOptions options;
  std::string error;
  if (!tg::tools::ParseProfileArgs(args, &options, &error)) {
    std::cerr << "tg profile: " << error << "\n\n" << tg::tools::kProfileUsage;
    return 2;
  }
  return tg::tools::ProfileCommand(options, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const char* cmd = argv[1];
  if (std::strcmp(cmd, "-h") == 0 || std::strcmp(cmd, "--help") == 0 || std::strcmp(cmd, "help") == 0) {
    std::cout << kUsage;
    return 0;
  }
  if ((std::strcmp(cmd, "--version") == 0 || std::strcmp(cmd, "version") == 0) && argc == 2) return VersionMain();
  if (std::strcmp(cmd, "devices") == 0 && argc == 2) return tg::tools::DevicesCommand(std::cout);
  if (std::strcmp(cmd, "devices") == 0 && argc == 3 && std::strcmp(argv[2], "--probe") == 0) {
    return tg::tools::ProbeDevicesCommand(std::cout, kProbeTimeoutSeconds);
  }
  if (std::strcmp(cmd, "bench") == 0) return BenchMain(argc, argv);
  if (std::strcmp(cmd, "compile") == 0) return CompileMain(argc, argv);
  if (std::strcmp(cmd, "viz") == 0) return VizMain(argc, argv);
  if (std::strcmp(cmd, "profile") == 0) return ProfileMain(argc, argv);
  std::cerr << "tg: unknown command or arguments: '" << cmd << "'\n\n" << kUsage;
  return 2;
}
