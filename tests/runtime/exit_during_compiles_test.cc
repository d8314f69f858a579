// A process may exit while kernels still compile on the runtime's task pool: nothing joins the pool, and
// a realize that threw (one kernel failed) leaves its other kernels compiling. Those compiles run on
// beside exit's static destructors, so nothing they use may be a static object that exit destroys (the
// CPU plugin's cache directory and compile flags were). The child below starts compiles and calls
// exit(); its first atexit handler runs after every static destructor registered later (all of the
// plugin's), then waits for the compiles and checks that each succeeded. A compile that read a destroyed
// static fails there (a garbage cache path or flag list) or, under ASan, is a heap-use-after-free report.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/program_cache.h"
#include "tests/runtime/fresh_cpu_device.h"
#include "tests/runtime/test_kernels.h"

namespace tg::runtime {
namespace {

constexpr int kKernels = 8;  // more than the pool has threads, so later ones start after exit began

std::vector<ProgramCache::Pending>* g_in_flight = nullptr;  // leaked: read by the last atexit handler

// out = a + b * k; |tag| makes the source new to every cache, so it really compiles.
KernelSource Kernel(int k, const std::string& tag) {
  std::string body = tg::testing::kVectorAdd;
  body.replace(body.find("a[i] + b[i]"), 11, "a[i] + b[i] * " + std::to_string(k) + ".0f");
  return {"c", std::string(tg::testing::kCPrelude) + "/* " + tag + " */\n" + body, "vadd"};
}

void WaitForCompilesThenExit() {
  int failed = 0;
  for (const ProgramCache::Pending& p : *g_in_flight) {
    const ProgramCache::Result& r = p.get();
    if (!r.ok()) {
      std::fprintf(stderr, "a compile still running at exit failed: %s\n", std::string(r.status().message()).c_str());
      ++failed;
    }
  }
  std::fflush(stderr);
  _exit(failed == 0 ? 0 : 3);
}

[[noreturn]] void ChildStartsCompilesAndExits() {
  std::atexit(WaitForCompilesThenExit);  // first registered: runs last
  absl::StatusOr<Device*> cpu = tg::testing::CpuRegistryWithTestCache().GetDevice("CPU");
  if (!cpu.ok()) _exit(2);
  std::string tag = "exit " + std::to_string(getpid()) + " " + std::to_string(std::rand());
  // One compile to the end first: every static the compile path uses exists (and is registered for
  // destruction) before exit starts.
  if (!(*cpu)->GetProgram(Kernel(-1, tag)).ok()) _exit(2);
  g_in_flight = new std::vector<ProgramCache::Pending>();
  for (int k = 0; k < kKernels; ++k) g_in_flight->push_back((*cpu)->GetProgramAsync(Kernel(k, tag)));
  std::exit(0);
}

TEST(ExitDuringCompiles, CompilesStillRunningAtExitSucceed) {
  std::srand(static_cast<unsigned>(time(nullptr)));
  for (int run = 0; run < 3; ++run) {
    pid_t kid = fork();
    ASSERT_GE(kid, 0);
    if (kid == 0) ChildStartsCompilesAndExits();
    int status = 0;
    ASSERT_EQ(waitpid(kid, &status, 0), kid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "run " << run << ": 2 = no CPU device or first compile failed, "
                                      << "3 = a compile still running at exit failed, other = a sanitizer report";
  }
}

}  // namespace
}  // namespace tg::runtime
