// The CI slice of differential testing: fixed seeds, every program through the compiler on the suite's
// device (tests/device_main.cc picks it) against the float64 reference. Longer runs: tools/fuzz_programs.
#include <cstdlib>

#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "tests/fuzz/differential.h"
#include "tests/fuzz/program_generator.h"

namespace tg::fuzz {
namespace {

// Seeds per run; OpenCL compiles are ~10x slower than the CPU plugin's, so it gets a smaller slice.
int SliceSize(const std::string& device) {
  if (const char* n = std::getenv("TG_FUZZ_PROGRAMS")) return std::atoi(n);
  return device.rfind("OPENCL", 0) == 0 ? 25 : 100;
}

TEST(ProgramFuzzTest, FixedSeedsAgreeWithReference) {
  std::string device = default_device();
  CheckStats stats;
  int n = SliceSize(device);
  for (int seed = 1; seed <= n; ++seed) {
    Program p = GenerateProgram(seed);
    auto bad = CheckProgram(p, device, &stats);
    if (!bad) continue;
    ADD_FAILURE() << "seed " << seed << " on " << device << ": " << *bad << "\n"
                  << ProgramString(ShrinkFailure(p, device)) << "reproduce: tools/fuzz_programs --seed " << seed
                  << " --count 1 --device " << device;
  }
  // Guards the tolerance model: most elements must really be compared, not skipped as ill-conditioned.
  EXPECT_GT(stats.compared, 10 * stats.skipped) << stats.compared << " compared, " << stats.skipped << " skipped";
}

}  // namespace
}  // namespace tg::fuzz
