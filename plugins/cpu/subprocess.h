// subprocess.h: runs a program with posix_spawnp and an argv array (no shell), capturing output.
// Used by the CPU plugin to run the system C compiler; plugin-internal.
#ifndef TG_PLUGINS_CPU_SUBPROCESS_H_
#define TG_PLUGINS_CPU_SUBPROCESS_H_

#include <string>
#include <vector>

namespace tg_cpu {

struct ProcessResult {
  bool spawned = false;  // false: posix_spawnp failed (spawn_errno says why); nothing ran
  int spawn_errno = 0;
  int exit_code = -1;    // exit status, or 128 + signal when killed by a signal
  std::string output;    // stdout and stderr interleaved, as the program wrote them
};

// Runs |argv| (argv[0] looked up on PATH when it has no '/') with stdin from /dev/null and waits
// for it. Never throws except std::bad_alloc; no shell is involved, so arguments need no quoting.
ProcessResult RunProcess(const std::vector<std::string>& argv);

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_SUBPROCESS_H_
