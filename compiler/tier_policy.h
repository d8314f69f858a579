// TierPolicy: when a kernel leaves the first execution tier (run by the device without compiling it)
// for the optimized one (compiled in the background), and the TG_TIER knob that forces either. The
// policy's figures and how they were chosen: docs/tiers.md.
#ifndef TG_COMPILER_TIER_POLICY_H_
#define TG_COMPILER_TIER_POLICY_H_

#include <cstdint>
#include <string_view>

#include "ir/uop.h"

namespace tg::compiler {

enum class TierMode {
  kAuto,       // TG_TIER=auto (default): the first tier, then the optimized one once a kernel is worth it
  kFirst,      // TG_TIER=0: the first tier only, on every device that has one
  kOptimized,  // TG_TIER=1: compile every kernel before its first launch, as without tiers
};

// "auto", "0" or "1"; anything else is a tg::Error that names the allowed values.
TierMode ParseTierMode(std::string_view value);
// TG_TIER's mode (auto when unset), read on every call: tests set it per case.
TierMode TierModeFromEnv();

// The element operations one run of |kernel_ast| does: its loops' trip counts multiplied (a symbolic
// length at its largest), times its ALU ops, loads and stores.
double KernelWork(const UOpRef& kernel_ast);

// Every figure counts launches and estimated work, never time, so the launch at which a kernel changes
// tier is the same in every run of a program (and on every data-parallel rank).
struct TierUpPolicy {
  // A kernel run once is never optimized: most of a program's kernels are (a model's set-up, a test).
  int64_t min_launches = 2;
  // Then it moves up once its launches have done this many element operations in all (KernelWork per
  // launch; the interpreter does about one per nanosecond and core, a compile costs tens of ms) ...
  double work = 8e6;
  // ... or once it has run this often, however cheap each run (a training step's small kernels).
  int64_t launches = 8;
  // The optimized kernel runs from this many launches after its compile started (waiting for the
  // compile there if it is not done: the price of the same bits in every run).
  int64_t swap_after = 4;
  // A kernel whose one run does more element operations than this starts optimized: its first run alone
  // would cost more in the interpreter than the compile.
  double start_optimized_work = 64e6;

  bool StartsOptimized(const UOpRef& kernel_ast) const { return KernelWork(kernel_ast) > start_optimized_work; }

  bool ShouldTierUp(int64_t launches_so_far, double work_per_launch) const {
    if (launches_so_far < min_launches) return false;
    return static_cast<double>(launches_so_far) * work_per_launch >= work || launches_so_far >= launches;
  }
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_TIER_POLICY_H_
