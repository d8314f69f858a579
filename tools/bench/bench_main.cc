// bench: the benchmark suite W1-W12 (docs/benchmarks.md; figures in RESULTS.md) on Google Benchmark.
//   ./bazelw run --config=bench //tools/bench -- [--device=CPU[,OPENCL]|all] [--filter=REGEX] [--reps=N]
//       [--json=out.json] [--list] [Google Benchmark flags]
//   bench --cold=mlp_forward|mlp_step|cnn_step|saved_jit|onnx --device=D   (W8's child; the suite spawns it itself)
// Timing: see timing.h. Figures go to the console (counters) and, with --json, to a tg bench report.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "frontend/tg.h"
#include "tools/bench/cold_start.h"
#include "tools/bench/report.h"
#include "tools/bench/timing.h"
#include "tools/bench/workloads.h"

namespace {

constexpr char kUsage[] =
    "usage: bench [--device=D[,D...]|all] [--filter=REGEX] [--reps=N] [--json=PATH] [--list]\n"
    "             [--benchmark_* flags of Google Benchmark]\n"
    "       bench --cold=mlp_forward|mlp_step|cnn_step|saved_jit|onnx [--device=D]   (one W8 cold-start child)\n"
    "  --device   devices to run on (default: the default device; 'all' = every device found)\n"
    "  --filter   regex over '<workload>/<device>' names (same as --benchmark_filter)\n"
    "  --reps     timed runs per workload, replacing each workload's own count (5; W5 20; W6 10)\n"
    "  --json     write the tg bench report (name, device, metric, value, unit) to PATH\n"
    "  --use_cache  keep the user's compile cache (default: a fresh empty TG_CACHE_DIR for this run,\n"
    "             so each workload's first_ms includes compiling its kernels)\n";

struct Flags {
  std::vector<std::string> devices;
  std::string json, cold;
  int reps = 0;
  bool list = false;
  bool use_cache = false;
};

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= s.size();) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Takes our flags out of argv (Google Benchmark rejects flags it does not know) and leaves the rest.
// Returns false on a malformed flag.
bool ParseFlags(int* argc, char** argv, Flags* flags, std::vector<std::string>* filter_arg) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 && a.size() > n && a[n] == '=' ? argv[i] + n + 1 : nullptr;
    };
    if (const char* v = value("--device")) flags->devices = SplitCommas(v);
    else if (const char* v = value("--json")) flags->json = v;
    else if (const char* v = value("--cold")) flags->cold = v;
    else if (const char* v = value("--reps")) flags->reps = std::atoi(v);
    else if (const char* v = value("--filter")) filter_arg->push_back(std::string("--benchmark_filter=") + v);
    else if (a == "--list") flags->list = true;
    else if (a == "--use_cache") flags->use_cache = true;
    else if (a == "-h" || a == "--help") return false;
    else argv[kept++] = argv[i];
  }
  *argc = kept;
  return true;
}

std::vector<std::string> ResolveDevices(const std::vector<std::string>& asked) {
  if (asked.empty()) return {tg::default_device()};
  if (asked.size() == 1 && asked[0] == "all") {
    std::vector<std::string> all;
    for (const tg::DeviceDescription& d : tg::available_devices()) all.push_back(d.name);
    return all;
  }
  return asked;
}

void PrintList() {
  std::cout << "workloads:\n";
  for (const tg::bench::Workload& w : tg::bench::AllWorkloads())
    std::cout << "  " << w.name << std::string(w.name.size() < 22 ? 22 - w.name.size() : 1, ' ') << w.description
              << "  [reps " << w.reps << ", warmup " << w.warmup << "]\n";
  std::cout << "devices (default " << tg::default_device() << "):\n";
  for (const tg::DeviceDescription& d : tg::available_devices())
    std::cout << "  " << d.name << "  " << d.description << " (" << d.arch << ", " << d.compute_units << " units)\n";
}

// "first run, compile included" means nothing if an earlier run left the kernels in the disk cache.
// Must run before the first device use: plugins read TG_CACHE_DIR when they load.
std::string UseFreshCompileCache() {
  std::string dir = (std::filesystem::temp_directory_path() / "tg_bench_cache_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) return "";
  setenv("TG_CACHE_DIR", dir.c_str(), 1);
  return dir;
}

tg::bench::Report MakeReport(const std::vector<std::string>& devices) {
  tg::bench::Report r;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  r.context["date"] = date;
#ifdef NDEBUG
  r.context["build"] = "opt";
#else
  r.context["build"] = "not opt (figures are not comparable: use --config=bench)";
#endif
  for (const tg::DeviceDescription& d : tg::available_devices()) r.context["device " + d.name] = d.description;
  r.records = tg::bench::PublishedRecords();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::vector<std::string> extra;
  if (!ParseFlags(&argc, argv, &flags, &extra)) {
    std::cout << kUsage;
    return 0;
  }
  try {
    std::string fresh_cache = flags.cold.empty() && !flags.list && !flags.use_cache ? UseFreshCompileCache() : "";
    std::vector<std::string> devices = ResolveDevices(flags.devices);
    if (!flags.cold.empty()) return tg::bench::RunColdChild(flags.cold, devices.front());
    // Warm figures are the optimized tier's steady state: a workload's few warm-up runs would otherwise
    // time its kernels' tier-ups. Cold children start as a user's fresh process does (docs/tiers.md).
    const char* tier = std::getenv("TG_TIER");
    tg::bench::SetColdChildTier(tier != nullptr ? tier : "auto");
    if (tier == nullptr) setenv("TG_TIER", "1", 1);
    if (flags.list) {
      PrintList();
      return 0;
    }
    std::vector<char*> args(argv, argv + argc);
    for (std::string& e : extra) args.push_back(e.data());
    int n = static_cast<int>(args.size());
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
    tg::bench::RegisterWorkloads(devices, flags.reps);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (!fresh_cache.empty()) std::filesystem::remove_all(fresh_cache);
    if (!flags.json.empty()) tg::bench::WriteReportFile(MakeReport(devices), flags.json);
  } catch (const std::exception& e) {
    std::cerr << "bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
