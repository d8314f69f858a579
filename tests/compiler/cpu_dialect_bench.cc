// Measures the CPU plugin's two compile paths for tools/bench/RESULTS.md ("CPU compile path"): the
// per-kernel compile latency of a corpus (gcc spawn vs in-process LLVM ORC) and the run time of four
// workloads. The dialect is the plugin's first one, so run it once per path:
//   TG_CPU_DIALECT=c       ./bazelw run --config=bench //tests/compiler:cpu_dialect_bench
//   TG_CPU_DIALECT=llvm-ir ./bazelw run --config=bench //tests/compiler:cpu_dialect_bench
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "runtime/device_registry.h"

namespace tg {
namespace {

double Now() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Kernels of each family, compiled |reps| times with a salted source so neither the in-memory program
// cache nor the plugin's disk cache answers.
void CompileLatency(runtime::Device& dev, int reps, bool with_softmax) {
  Tensor a = Tensor::rand({64, 96}), b = Tensor::rand({96}), m = Tensor::rand({96, 32});
  std::vector<std::pair<const char*, Tensor>> corpus = {
      {"elementwise", (a * b + 1).relu()}, {"reduce", a.sum({1})}, {"matmul", a.matmul(m)},
      {"gelu", a.gelu()}};
  // softmax's row max folds 16 vector lanes; the C renderer inlines single-use expressions and spells
  // MAX as (a<b)?b:a, so that kernel's C source grows to ~1.1 MB and gcc takes minutes: opt-in only.
  if (with_softmax) corpus.push_back({"softmax", a.softmax(-1)});
  const std::string& dialect = dev.info().source_dialects.at(0);
  std::vector<double> all;
  for (auto& [label, t] : corpus) {
    std::vector<double> times;
    for (const compiler::ScheduleItem& item : compiler::CreateSchedule({t.uop()}, {t.device()}).items) {
      if (item.kind != compiler::ScheduleItem::Kind::kKernel) continue;
      compiler::GeneratedKernel k = compiler::GenerateKernel(item.ast, dev.info());
      for (int r = 0; r < reps; ++r) {
        runtime::KernelSource src = k.source;
        std::string salt = std::to_string(getpid()) + "_" + std::to_string(r) + "_" + std::to_string(Now());
        src.source = (dialect == "c" ? "/* salt " + salt + " */\n" : "; salt " + salt + "\n") + src.source;
        double t0 = Now();
        if (!dev.GetProgram(src).ok()) std::fprintf(stderr, "compile of %s failed\n", k.name.c_str());
        times.push_back(Now() - t0);
      }
    }
    all.insert(all.end(), times.begin(), times.end());
    std::printf("compile %-8s %-12s median %7.2f ms  min %7.2f  max %7.2f  (%zu compiles)\n", dialect.c_str(), label,
                Median(times), *std::min_element(times.begin(), times.end()),
                *std::max_element(times.begin(), times.end()), times.size());
  }
  std::printf("compile %-8s %-12s median %7.2f ms\n", dialect.c_str(), "ALL", Median(all));
}

void RunTime(runtime::Device& dev, int reps) {
  const std::string& dialect = dev.info().source_dialects.at(0);
  Tensor x = Tensor::rand({4 << 20}), y = Tensor::rand({4 << 20});
  Tensor a = Tensor::rand({256, 256}), b = Tensor::rand({256, 256});
  Tensor::realize_all({x, y, a, b});
  std::vector<std::pair<const char*, std::function<Tensor()>>> work = {
      {"x*y+1 4M", [&] { return x * y + 1; }},
      {"sum 4M", [&] { return x.sum(); }},
      {"matmul 256", [&] { return a.matmul(b); }},
      {"gelu 4M", [&] { return x.gelu(); }},
      {"exp 4M", [&] { return x.exp(); }},
  };
  for (auto& [label, f] : work) {
    std::vector<double> times;
    for (int r = 0; r < reps + 2; ++r) {
      double t0 = Now();
      Tensor out = f();
      out.realize();
      (void)dev.Synchronize();
      if (r >= 2) times.push_back(Now() - t0);  // the first two include codegen and compile
    }
    std::printf("run     %-8s %-12s median %7.3f ms  min %7.3f  (%d runs)\n", dialect.c_str(), label, Median(times),
                *std::min_element(times.begin(), times.end()), reps);
  }
}

}  // namespace
}  // namespace tg

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  tg::runtime::Device* dev = tg::runtime::DeviceRegistry::Global().GetDevice("CPU").value();
  tg::CompileLatency(*dev, reps, argc > 2 && std::string(argv[2]) == "softmax");
  tg::RunTime(*dev, reps);
  return 0;
}
