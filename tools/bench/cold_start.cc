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

#include "compiler/compiler.h"
#include "frontend/onnx/onnx.h"
#include "frontend/tg.h"
#include "ir/error.h"
#include "tools/bench/mlp_trainer.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/cnn_trainer.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

extern char** environ;

namespace tg::bench {
namespace {

std::string& ColdChildTier() {
  static auto* tier = new std::string("auto");
  return *tier;
}

// Runs `<this binary> --cold=<kind> --device=<device>` with TG_CACHE_DIR=<fresh dir> and returns
// the child's figure in seconds. The directory is removed afterwards. |extra_env| adds NAME=VALUE pairs.
double SpawnColdChild(const std::string& kind, const std::string& device,
                      const std::vector<std::string>& extra_env = {}) {
  std::string dir_template = (std::filesystem::temp_directory_path() / "tg_cold_XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) throw Error("mkdtemp failed for " + dir_template);
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {self, "--cold=" + kind, "--device=" + device};
  std::vector<std::string> env = extra_env;
  env.push_back("TG_CACHE_DIR=" + dir_template);
  env.push_back("TG_TIER=" + ColdChildTier());
  for (char** e = environ; *e != nullptr; ++e) {
    std::string var(*e);
    if (var.rfind("TG_CACHE_DIR=", 0) != 0 && var.rfind("TG_TIER=", 0) != 0) env.push_back(std::move(var));
  }
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

const char* EnvOrEmpty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

int PrintColdFigure(double seconds) {
  std::printf("cold_ms %.3f\n", seconds * 1e3);
  return 0;
}

// Seconds |first_call| takes, the device synchronized before and after it.
template <typename F>
double TimeFirstCall(const std::string& device, F first_call) {
  SyncDevice(device);
  auto t0 = std::chrono::steady_clock::now();
  first_call();
  SyncDevice(device);
  return SecondsSince(t0);
}

// The child of W8c: everything before the timer is what a deployment has anyway (its input).
int RunSavedJitChild(const std::string& device) {
  Tensor input = onnx::load_tensor(EnvOrEmpty("TG_COLD_INPUT"), device).realize();
  SyncDevice(device);
  auto t0 = std::chrono::steady_clock::now();
  Jit jit = Jit::load(EnvOrEmpty("TG_COLD_JIT"));
  for (Tensor& t : jit({input})) t.realize();
  SyncDevice(device);
  double s = SecondsSince(t0);
  uint64_t compiles = compiler::DeviceNamed(device).program_cache().counters().compiles;
  if (compiles != 0) throw Error("the saved Jit's process compiled " + std::to_string(compiles) + " kernels");
  return PrintColdFigure(s);
}

// The child of W8d: the model is read, imported and run inside the timer, as ONNX Runtime's session
// creation and first run are in its peer.
int RunOnnxChild(const std::string& device) {
  Tensor input = onnx::load_tensor(EnvOrEmpty("TG_COLD_INPUT"), device).realize();
  return PrintColdFigure(TimeFirstCall(device, [&] {
    onnx::Model model = onnx::load(EnvOrEmpty("TG_COLD_MODEL"), device);
    for (Tensor& t : model.run_in_order({input})) t.realize();
  }));
}

int RunMlpChild(const std::string& kind, const std::string& device) {
  MlpTrainer trainer(device);  // parameters, Adam state, input and labels realized before the timer
  return PrintColdFigure(TimeFirstCall(device, [&] {
    if (kind == kColdForward) trainer.Forward().realize();
    else trainer.Step();
  }));
}

int RunCnnChild(const std::string& device) {
  CnnTrainer trainer(device);
  return PrintColdFigure(TimeFirstCall(device, [&] { trainer.Step(); }));
}

// |model| on its checked-in input, captured under a Jit and saved to a file of this process's temp dir.
std::string SaveOcrJit(const OcrModel& which, const std::string& device, const std::string& input_path) {
  onnx::Model model = onnx::load(OcrModelPath(which), device);
  Tensor input = onnx::load_tensor(input_path, device).realize();
  Jit jit([&](const std::vector<Tensor>& in) { return model.run_in_order(in); });
  jit({input});
  jit({input});
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tg_bench_" + std::to_string(getpid()) + "_" + which.name + ".tgjit")).string();
  jit.save(path);
  return path;
}

// What of |which|'s model and checked-in input is missing ("" when neither); |input_path| gets the input.
std::string MissingOcrFiles(const OcrModel& which, std::string* input_path) {
  if (!std::filesystem::exists(OcrModelPath(which)))
    return OcrModelPath(which) + " is absent: run tools/setup.sh or set TG_MODEL_DIR";
  *input_path = OcrInputPath(which);
  if (input_path->empty()) return std::string("tests/onnx/paddleocr/") + which.input_file + " not found";
  return "";
}

}  // namespace

void SetColdChildTier(const std::string& tier) { ColdChildTier() = tier; }

int RunColdChild(const std::string& kind, const std::string& device) {
  ScopedDefaultDevice on(device);
  if (kind == kColdSavedJit) return RunSavedJitChild(device);
  if (kind == kColdOnnx) return RunOnnxChild(device);
  if (kind == kColdCnnStep) return RunCnnChild(device);
  if (kind == kColdForward || kind == kColdStep) return RunMlpChild(kind, device);
  std::cerr << "bench: --cold takes " << kColdForward << ", " << kColdStep << ", " << kColdCnnStep << ", "
            << kColdSavedJit << " or " << kColdOnnx << ", not '" << kind << "'\n";
  return 2;
}

void RunColdStart(benchmark::State& state, const std::string& device, int warmup, const std::string& name,
                  const std::string& kind) {
  // Every run is cold (its own process and cache), so "first" is simply the first child.
  Timed t = TimeSelfTimedRuns(state, [&] { return SpawnColdChild(kind, device); }, warmup);
  Publish(state, name, device, t, t.median_s * 1e3, "ms");
}

void RunColdOnnx(benchmark::State& state, const std::string& device, int warmup, const std::string& name,
                 const OcrModel& which) {
  std::string input_path;
  if (std::string missing = MissingOcrFiles(which, &input_path); !missing.empty())
    return PublishSkipped(state, name, device, "ms", missing);
  std::vector<std::string> env = {"TG_COLD_MODEL=" + OcrModelPath(which), "TG_COLD_INPUT=" + input_path};
  Timed t = TimeSelfTimedRuns(state, [&] { return SpawnColdChild(kColdOnnx, device, env); }, warmup);
  Publish(state, name, device, t, t.median_s * 1e3, "ms");
}

void RunColdSavedJit(benchmark::State& state, const std::string& device, int warmup, const OcrModel& which) {
  const std::string name = "W8c_cold_ocr_det_saved_jit";
  std::string input_path;
  if (std::string missing = MissingOcrFiles(which, &input_path); !missing.empty())
    return PublishSkipped(state, name, device, "ms", missing);
  std::string jit_path;
  try {
    jit_path = SaveOcrJit(which, device, input_path);
  } catch (const Error& e) {  // a model the Jit cannot capture yet is a skip with its reason, not a figure
    return PublishSkipped(state, name, device, "ms", std::string("its Jit cannot be saved: ") + e.what());
  }
  std::vector<std::string> env = {"TG_COLD_JIT=" + jit_path, "TG_COLD_INPUT=" + input_path};
  Timed t = TimeSelfTimedRuns(state, [&] { return SpawnColdChild(kColdSavedJit, device, env); }, warmup);
  std::filesystem::remove(jit_path);
  Publish(state, name, device, t, t.median_s * 1e3, "ms");
}

}  // namespace tg::bench
