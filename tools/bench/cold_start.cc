#include "tools/bench/cold_start.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "ir/error.h"
#include "tools/bench/mlp_trainer.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/timing.h"

extern char** environ;

namespace tg::bench {
namespace {

// Runs `<this binary> --cold=<kind> --device=<device>` with TG_CACHE_DIR=<fresh dir> and returns
// the child's figure in seconds. The directory is removed afterwards.
double SpawnColdChild(const std::string& kind, const std::string& device) {
  std::string dir_template = (std::filesystem::temp_directory_path() / "tg_cold_XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) throw Error("mkdtemp failed for " + dir_template);
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {self, "--cold=" + kind, "--device=" + device};
  std::vector<std::string> env = {"TG_CACHE_DIR=" + dir_template};
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind("TG_CACHE_DIR=", 0) != 0) env.emplace_back(*e);
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  for (std::string& e : env) envp.push_back(e.data());
  argv.push_back(nullptr), envp.push_back(nullptr);

  int out[2];
  if (pipe(out) != 0) throw Error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; rc == 0 && (n = read(out[0], buf, sizeof(buf))) > 0;) text.append(buf, n);
  close(out[0]);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  std::filesystem::remove_all(dir_template);
  double ms = 0;
  if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || std::sscanf(text.c_str(), "cold_ms %lf", &ms) != 1)
    throw Error("cold-start child (" + kind + " on " + device + ") failed; its output: " + text);
  return ms / 1e3;
}

}  // namespace

int RunColdChild(const std::string& kind, const std::string& device) {
  if (kind != kColdForward && kind != kColdStep) {
    std::cerr << "bench: --cold takes " << kColdForward << " or " << kColdStep << ", not '" << kind << "'\n";
    return 2;
  }
  ScopedDefaultDevice on(device);
  MlpTrainer trainer(device);  // parameters, Adam state, input and labels realized before the timer
  SyncDevice(device);
  auto t0 = std::chrono::steady_clock::now();
  if (kind == kColdForward) trainer.Forward().realize();
  else trainer.Step();
  SyncDevice(device);
  double s = SecondsSince(t0);
  std::printf("cold_ms %.3f\n", s * 1e3);
  return 0;
}

void RunColdStart(benchmark::State& state, const std::string& device, int warmup, const std::string& kind) {
  // Every run is cold (its own process and cache), so "first" is simply the first child.
  Timed t = TimeSelfTimedRuns(state, [&] { return SpawnColdChild(kind, device); }, warmup);
  std::string name = kind == kColdForward ? "W8a_cold_mlp_forward" : "W8b_cold_mlp_step";
  Publish(state, name, device, t, t.median_s * 1e3, "ms");
}

}  // namespace tg::bench
