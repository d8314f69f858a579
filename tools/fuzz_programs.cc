// tools/fuzz_programs: long runs of the differential tester. Random tensor programs through the
// compiler on each device against a float64 reference, and random index expressions through Simplify.
//
//   fuzz_programs [--seconds N] [--seed S] [--count C] [--device NAME]... [--kind programs|symbolic|both]
//                 [--max-steps K] [--keep-going]
// Seeds run S, S+1, ... until N seconds or C seeds pass. On the first mismatch it prints the seed, the
// program, a shrunk program that still fails (paste it into tests/compiler/regression_test.cc), and exits 1;
// with --keep-going it prints each mismatch, goes on, and exits 1 at the end with their count.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "frontend/tg.h"
#include "tests/fuzz/differential.h"
#include "tests/fuzz/program_generator.h"
#include "tests/fuzz/symbolic_fuzz.h"

namespace {

struct Flags {
  double seconds = 60;
  uint64_t seed = 1;
  uint64_t count = UINT64_MAX;
  std::vector<std::string> devices;
  std::string kind = "both";
  bool keep_going = false;
  tg::fuzz::GeneratorOptions gen;
};

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--seconds") f.seconds = std::stod(next());
    else if (a == "--seed") f.seed = std::stoull(next());
    else if (a == "--count") f.count = std::stoull(next());
    else if (a == "--device") f.devices.push_back(next());
    else if (a == "--kind") f.kind = next();
    else if (a == "--max-steps") f.gen.max_steps = std::stoi(next());
    else if (a == "--keep-going") f.keep_going = true;
    else {
      std::fprintf(stderr, "unknown flag %s (see the comment at the top of tools/fuzz_programs.cc)\n", a.c_str());
      std::exit(2);
    }
  }
  if (f.devices.empty())
    for (const auto& d : tg::available_devices())
      if (d.name.find(':') == std::string::npos) f.devices.push_back(d.name);  // first device of each plugin
  return f;
}

// One seed on every device; false after printing a reproducible report.
bool RunProgramSeed(const Flags& f, uint64_t seed, int64_t* compared) {
  tg::fuzz::Program p = tg::fuzz::GenerateProgram(seed, f.gen);
  for (const std::string& dev : f.devices) {
    tg::fuzz::CheckStats stats;
    auto bad = tg::fuzz::CheckProgram(p, dev, &stats);
    *compared += stats.compared;
    if (!bad) continue;
    std::printf("MISMATCH program seed %llu on %s: %s\n--- program ---\n%s--- shrunk ---\n%s",
                static_cast<unsigned long long>(seed), dev.c_str(), bad->c_str(), tg::fuzz::ProgramString(p).c_str(),
                tg::fuzz::ProgramString(tg::fuzz::ShrinkFailure(p, dev)).c_str());
    std::printf("reproduce: fuzz_programs --kind programs --seed %llu --count 1 --device %s\n",
                static_cast<unsigned long long>(seed), dev.c_str());
    return false;
  }
  return true;
}

bool RunSymbolicSeed(uint64_t seed) {
  auto bad = tg::fuzz::CheckSimplify(tg::fuzz::GenerateSymbolic(seed));
  if (!bad) return true;
  std::printf("MISMATCH symbolic seed %llu: %s\nreproduce: fuzz_programs --kind symbolic --seed %llu --count 1\n",
              static_cast<unsigned long long>(seed), bad->c_str(), static_cast<unsigned long long>(seed));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f = Parse(argc, argv);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  uint64_t programs = 0, expressions = 0, mismatches = 0;
  int64_t compared = 0;
  std::string devs;
  for (const auto& d : f.devices) devs += " " + d;
  std::printf("fuzz_programs: seed %llu, %.0f s, devices:%s\n", static_cast<unsigned long long>(f.seed), f.seconds,
              devs.c_str());
  for (uint64_t i = 0; i < f.count && elapsed() < f.seconds; ++i) {
    uint64_t seed = f.seed + i;
    if (f.kind != "symbolic") {
      if (!RunProgramSeed(f, seed, &compared) && (++mismatches, !f.keep_going)) return 1;
      ++programs;
    }
    if (f.kind != "programs") {
      // Expressions are ~100x cheaper than programs: run a batch per program seed.
      for (uint64_t k = 0; k < (f.kind == "symbolic" ? 1 : 20); ++k, ++expressions)
        if (!RunSymbolicSeed(f.kind == "symbolic" ? seed : seed * 20 + k) && (++mismatches, !f.keep_going)) return 1;
    }
  }
  std::printf("fuzz_programs: %llu programs x %zu devices (%lld elements compared), %llu expressions, %.1f s: "
              "%llu mismatches\n",
              static_cast<unsigned long long>(programs), f.devices.size(), static_cast<long long>(compared),
              static_cast<unsigned long long>(expressions), elapsed(), static_cast<unsigned long long>(mismatches));
  return mismatches == 0 ? 0 : 1;
}
