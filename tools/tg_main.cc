// tg_main.cc: the `tg` command line (DESIGN §8): subcommand dispatch and usage.
// Only `devices` exists so far; bench, cts and viz join as their rooms land.
#include <cstring>
#include <iostream>

#include "tools/devices_command.h"

namespace {

constexpr char kUsage[] =
    "usage: tg <command>\n"
    "\n"
    "commands:\n"
    "  devices    list every plugin found (path, name, version, ABI, status, reason)\n"
    "             and each device (arch, vector width, compute units, memory)\n"
    "\n"
    "options:\n"
    "  -h, --help show this help\n"
    "\n"
    "environment: TG_PLUGIN_PATH (extra plugin directories or .so files, ':'-separated),\n"
    "  TG_PLUGIN_TRACE=1 (log each plugin loading step), TG_DEVICE, DEBUG\n";

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
  if (std::strcmp(cmd, "devices") == 0 && argc == 2) return tg::tools::DevicesCommand(std::cout);
  std::cerr << "tg: unknown command or arguments: '" << cmd << "'\n\n" << kUsage;
  return 2;
}
