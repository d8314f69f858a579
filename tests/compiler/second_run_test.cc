// "A second run of the same program compiles nothing": cache_probe runs twice in fresh processes
// on one fresh TG_CACHE_DIR; the second finds every kernel (and every BEAM winner) on disk, whichever
// CPU dialect compiled it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace {

struct ProbeRun {
  unsigned long long compiles = ~0ull, disk_loads = 0;
  double total = 0;
};

// Runs ./tests/compiler/cache_probe (tests start in the runfiles root) with |env| prepended.
ProbeRun RunProbe(const std::string& env) {
  std::string cmd = "env " + env + " ./tests/compiler/cache_probe";
  FILE* p = popen(cmd.c_str(), "r");
  ProbeRun r;
  if (p == nullptr) return r;
  char line[256] = {};
  while (std::fgets(line, sizeof line, p) != nullptr)
    std::sscanf(line, "compiles=%llu disk_loads=%llu total=%lf", &r.compiles, &r.disk_loads, &r.total);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return r;
}

std::string FreshCacheDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/second_run_" + name;
}

TEST(SecondRun, CompilesNothing) {
  std::string env = "TG_CACHE_DIR=" + FreshCacheDir("plain") + " BEAM=0";
  ProbeRun first = RunProbe(env), second = RunProbe(env);
  EXPECT_GT(first.compiles, 0u);
  EXPECT_EQ(second.compiles, 0u);
  EXPECT_EQ(second.disk_loads, first.compiles);
  EXPECT_DOUBLE_EQ(second.total, first.total);
}

// With BEAM the first run compiles many candidates; the second reads the winners and binaries.
TEST(SecondRun, CompilesNothingWithBeamEither) {
  std::string env = "TG_CACHE_DIR=" + FreshCacheDir("beam") + " BEAM=1 BEAM_TIMEOUT_S=8";
  ProbeRun plain = RunProbe("TG_CACHE_DIR=" + FreshCacheDir("beam_reference") + " BEAM=0");
  ProbeRun first = RunProbe(env), second = RunProbe(env);
  EXPECT_GT(first.compiles, plain.compiles);  // the search compiled candidates
  EXPECT_EQ(second.compiles, 0u);
  EXPECT_NEAR(first.total, plain.total, 1e-3 * std::abs(plain.total) + 1e-3);
  EXPECT_DOUBLE_EQ(second.total, first.total);
}

// The llvm-ir dialect's object code is cached like gcc's shared objects (own target: libLLVM).
TEST(SecondRunLlvmIr, CompilesNothing) {
  std::string env = "TG_CACHE_DIR=" + FreshCacheDir("llvm_ir") + " BEAM=0 TG_CPU_DIALECT=llvm-ir";
  ProbeRun reference = RunProbe("TG_CACHE_DIR=" + FreshCacheDir("llvm_ir_reference") + " BEAM=0");
  ProbeRun first = RunProbe(env), second = RunProbe(env);
  EXPECT_GT(first.compiles, 0u);
  EXPECT_EQ(second.compiles, 0u);
  EXPECT_EQ(second.disk_loads, first.compiles);
  EXPECT_DOUBLE_EQ(second.total, first.total);
  EXPECT_NEAR(first.total, reference.total, 1e-3 * std::abs(reference.total) + 1e-3);  // as the C path
}

}  // namespace
