// KernelCache: every kernel this process has generated, by (AST, device), each with its execution
// tiers (docs/tiers.md). Realize asks it for the program to launch; tg::Jit's capture for the
// optimized one. ASTs are hash-consed, so an equal kernel is the same node and skips codegen: a
// repeated realize costs a lookup and a launch.
#ifndef TG_COMPILER_KERNEL_CACHE_H_
#define TG_COMPILER_KERNEL_CACHE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "compiler/codegen/codegen.h"
#include "compiler/tier_policy.h"
#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

// A kernel generated for one device in one tier, and its program.
struct CompiledKernel {
  GeneratedKernel kernel;
  runtime::ProgramCache::Pending program;  // may still be compiling; get() waits
  int tier = 1;                            // 0: the first tier (not compiled), 1: optimized
};
using KernelRef = std::shared_ptr<const CompiledKernel>;

// One kernel on one device across its tiers. Thread-safe: realizes on several threads share it.
class TieredKernel {
 public:
  // |first| is the first tier's kernel, or null where the kernel starts optimized (then |optimized|).
  TieredKernel(UOpRef ast, runtime::Device& device, TierMode mode, KernelRef first, KernelRef optimized);

  // The kernel to launch now, which depends only on how often it has launched: the first tier until the
  // policy's launch, which generates the optimized kernel and starts its compile on the task pool; the
  // optimized tier from TierUpPolicy::swap_after launches later (waiting there for a compile not yet
  // done, so two runs of a program compute the same bits).
  KernelRef ForLaunch();
  // The optimized tier (tg::Jit captures and saved Jits run it), generated on the calling thread if
  // it was not started; its program may still be compiling.
  KernelRef Optimized();
  // Whether the kernel a launch would get has a failed program (so realizing again retries it).
  bool Failed() const;
  // The launches ForLaunch has counted (a Jit's replays are not among them).
  int64_t launches() const;

 private:
  void TierUp();
  static bool ProgramOf(const CompiledKernel& k);

  const UOpRef ast_;
  runtime::Device& device_;
  const TierMode mode_;
  const TierUpPolicy policy_;
  const double work_per_launch_;  // KernelWork, which the policy reads
  mutable std::mutex mu_;          // guards what follows
  KernelRef first_, optimized_;
  bool tiering_up_ = false;
  int64_t launches_ = 0;
  int64_t swap_at_ = 0;            // the first launch that runs optimized_
};

class KernelCache {
 public:
  static KernelCache& Global();

  // The kernel of (|ast|, |device|), generating it on a miss: its first tier where the device has one
  // and TG_TIER allows it (never under BEAM, which searches the optimized tier), else the optimized
  // one, whose compile starts on the task pool. A kernel whose program failed counts as a miss.
  std::shared_ptr<TieredKernel> Start(const UOpRef& ast, runtime::Device& device);
  // The kernel when it was started before (and did not fail), else null.
  std::shared_ptr<TieredKernel> Find(const UOpRef& ast, runtime::Device& device);

 private:
  std::mutex mu_;  // guards kernels_ (std::mutex, not absl::Mutex, which TSan cannot see: ir/uop.cc)
  absl::flat_hash_map<std::pair<UOpRef, runtime::Device*>, std::shared_ptr<TieredKernel>> kernels_;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_KERNEL_CACHE_H_
