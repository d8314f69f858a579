#include "compiler/kernel_cache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/codegen/beam.h"
#include "compiler/viz/viz_record.h"
#include "ir/env.h"
#include "ir/error.h"
#include "runtime/trace_recorder.h"

namespace tg::compiler {
namespace {

// Codegen and BEAM searches run one at a time, as they always have, and one thread generates a kernel
// that several ask for; the compiles they start run side by side.
std::mutex& CodegenMutex() {
  static auto* mu = new std::mutex();  // std::mutex, not absl::Mutex, which TSan cannot see (ir/uop.cc)
  return *mu;
}

// What a codegen event says: the kernel it made, for which device, in which tier, from whose opts.
void DescribeCodegen(runtime::TraceSpan& span, const CompiledKernel& compiled, const runtime::Device& device,
                     const char* opts) {
  span.Rename(compiled.kernel.name);
  span.Arg(runtime::TraceArg::Str("device", device.name()));
  span.Arg(runtime::TraceArg::Str("dialect", compiled.kernel.source.dialect));
  span.Arg(runtime::TraceArg::Num("tier", compiled.tier));
  span.Arg(runtime::TraceArg::Str("opts", opts));
}

// DEBUG=4: a first-tier kernel's source says so on its first line ("tg-uops ...").
void PrintSource(const CompiledKernel& compiled, const runtime::Device& device) {
  if (DebugLevel() < 4) return;
  std::fprintf(stderr, "--- %s on %s ---\n%s\n", compiled.kernel.name.c_str(), device.name().c_str(),
               compiled.kernel.source.source.c_str());
}

// BEAM=N's winner (searched on this device, or from the disk cache), else the heuristic's opts; the
// program's compile starts on the task pool. The caller holds CodegenMutex().
KernelRef GenerateOptimized(const UOpRef& ast, runtime::Device& device) {
  auto compiled = std::make_shared<CompiledKernel>();
  runtime::TraceSpan span("codegen", "codegen");
  std::optional<std::vector<Opt>> opts = [&] {
    viz::NotRecorded candidates;  // BEAM's trial kernels; the winner is recorded below
    return ChooseOpts(ast, device);
  }();
  viz::TraceGroup group(viz::Recording() ? KernelName(ast) : "");
  compiled->kernel = opts ? GenerateKernel(ast, TargetOf(device), *opts) : GenerateKernel(ast, TargetOf(device));
  if (span.active()) DescribeCodegen(span, *compiled, device, opts ? "BEAM" : "heuristic");
  PrintSource(*compiled, device);
  compiled->program = device.GetProgramAsync(compiled->kernel.source);
  return compiled;
}

// The heuristic's opts for the interpreter's target; the device parses the program at once. The caller
// holds CodegenMutex().
KernelRef GenerateFirstTier(const UOpRef& ast, runtime::Device& device, const Target& first_tier) {
  auto compiled = std::make_shared<CompiledKernel>();
  compiled->tier = 0;
  runtime::TraceSpan span("codegen", "codegen");
  compiled->kernel = GenerateKernel(ast, first_tier);
  compiled->kernel.source.interpreted = true;
  if (span.active()) DescribeCodegen(span, *compiled, device, "heuristic");
  PrintSource(*compiled, device);
  std::promise<runtime::ProgramCache::Result> made;
  made.set_value(device.GetProgram(compiled->kernel.source));
  compiled->program = made.get_future().share();
  return compiled;
}

// Whether |device| has compiled in the background before. A plugin's first compile may set up its
// compiler (the CPU plugin's LLVM makes its lazy statics then, and only afterwards can it make exit wait
// for compiles in flight), so the first tier-up on a device waits for its compile: a process that
// exited meanwhile would tear that compiler down under it.
bool FirstBackgroundCompile(const runtime::Device& device) {
  static auto* mu = new std::mutex();
  static auto* seen = new absl::flat_hash_set<const runtime::Device*>();
  std::lock_guard<std::mutex> lock(*mu);
  return seen->insert(&device).second;
}

// The compiles tier-ups left running. Exit waits for them in a handler registered as each starts, so it
// runs before the destructors of everything made before that compile began (the host's caches, the
// plugin's compiler), which the compile still uses.
std::mutex& InFlightMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<runtime::ProgramCache::Pending>& InFlight() {
  static auto* compiles = new std::vector<runtime::ProgramCache::Pending>();
  return *compiles;
}
void WaitForTierUpCompiles() {
  std::vector<runtime::ProgramCache::Pending> compiles;
  {
    std::lock_guard<std::mutex> lock(InFlightMutex());
    compiles = InFlight();
  }
  for (const runtime::ProgramCache::Pending& c : compiles) c.wait();
}
void ExitWaitsFor(const runtime::ProgramCache::Pending& compile) {
  {
    std::lock_guard<std::mutex> lock(InFlightMutex());
    InFlight().push_back(compile);
  }
  std::atexit(WaitForTierUpCompiles);
}

bool Ready(const CompiledKernel& k) {
  return k.program.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool ProgramFailed(const CompiledKernel& k) { return Ready(k) && !k.program.get().ok(); }

}  // namespace

TieredKernel::TieredKernel(UOpRef ast, runtime::Device& device, TierMode mode, KernelRef first, KernelRef optimized)
    : ast_(std::move(ast)),
      device_(device),
      mode_(mode),
      work_per_launch_(first != nullptr ? KernelWork(ast_) : 0),
      first_(std::move(first)),
      optimized_(std::move(optimized)) {}

KernelRef TieredKernel::ForLaunch() {
  KernelRef optimized;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_ == nullptr) return optimized_;
    ++launches_;
    if (optimized_ != nullptr && launches_ >= swap_at_) {
      optimized = optimized_;
    } else if (mode_ == TierMode::kAuto && !tiering_up_ && policy_.ShouldTierUp(launches_, work_per_launch_)) {
      tiering_up_ = true;
      swap_at_ = launches_ + policy_.swap_after;
    } else {
      return first_;
    }
  }
  if (optimized == nullptr) {
    TierUp();
    return first_;  // the compile has only started
  }
  // The swap waits for a compile not done by now, so the launch that changes tier is a function of the
  // launch count alone: two runs of a program (or two data-parallel ranks) compute the same bits.
  if (ProgramOf(*optimized)) return optimized;
  std::lock_guard<std::mutex> lock(mu_);
  optimized_ = nullptr;  // tiering_up_ stays set: it is not tried again
  return first_;
}

// Waits for |k|'s program; false (and says so once) when its compile failed: a kernel that runs in the
// first tier keeps running there, as the failure is a compiler bug to report, not a reason to stop.
bool TieredKernel::ProgramOf(const CompiledKernel& k) {
  const runtime::ProgramCache::Result& program = k.program.get();
  if (program.ok()) return true;
  std::fprintf(stderr, "tinygrad-cc: kernel %s stays in the first tier: compiling it failed: %s\n",
               k.kernel.name.c_str(), std::string(program.status().message()).c_str());
  return false;
}

// Codegen runs here, on the launching thread, like every codegen (a few ms, once per kernel): a
// background thread could still be generating code when the process exits and its statics are torn
// down. The compile, the expensive part, runs on the task pool, which is made for that.
void TieredKernel::TierUp() {
  runtime::TraceSpan span("tier-up", first_->kernel.name);
  if (span.active()) {
    std::lock_guard<std::mutex> lock(mu_);
    span.Arg(runtime::TraceArg::Num("launches", static_cast<double>(launches_)));
    span.Arg(runtime::TraceArg::Num("work_per_launch", work_per_launch_));
  }
  KernelRef optimized;
  try {
    std::lock_guard<std::mutex> codegen(CodegenMutex());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (optimized_ != nullptr) return;  // a tg::Jit capture asked for it first
    }
    optimized = GenerateOptimized(ast_, device_);
  } catch (const Error& e) {
    std::fprintf(stderr, "tinygrad-cc: kernel %s stays in the first tier: %s\n", first_->kernel.name.c_str(),
                 e.what());
  }
  if (optimized != nullptr && FirstBackgroundCompile(device_)) optimized->program.wait();
  if (optimized != nullptr) ExitWaitsFor(optimized->program);
  std::lock_guard<std::mutex> lock(mu_);
  if (optimized_ == nullptr) optimized_ = std::move(optimized);
}

KernelRef TieredKernel::Optimized() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (optimized_ != nullptr) return optimized_;
  }
  std::lock_guard<std::mutex> codegen(CodegenMutex());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (optimized_ != nullptr) return optimized_;
  }
  KernelRef made = GenerateOptimized(ast_, device_);
  std::lock_guard<std::mutex> lock(mu_);
  if (optimized_ == nullptr) {
    optimized_ = std::move(made);
    // Plain launches follow the capture from now on (a point in the program, so still deterministic).
    tiering_up_ = true;
    swap_at_ = launches_;
  }
  return optimized_;
}

bool TieredKernel::Failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  const KernelRef& launched = first_ != nullptr ? first_ : optimized_;
  return ProgramFailed(*launched);
}

int64_t TieredKernel::launches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return launches_;
}

KernelCache& KernelCache::Global() {
  static auto* cache = new KernelCache();
  return *cache;
}

std::shared_ptr<TieredKernel> KernelCache::Start(const UOpRef& ast, runtime::Device& device) {
  if (std::shared_ptr<TieredKernel> found = Find(ast, device)) return found;
  std::lock_guard<std::mutex> codegen(CodegenMutex());
  if (std::shared_ptr<TieredKernel> found = Find(ast, device)) return found;  // made meanwhile
  TierMode mode = TierModeFromEnv();
  const Target* first_tier = TargetOf(device).first_tier();
  // BEAM searches the optimized tier, VIZ shows the kernels that tier makes, and a kernel whose first
  // run alone would cost more in the first tier than its compile starts there.
  bool tiered = first_tier != nullptr && mode != TierMode::kOptimized &&
                (mode == TierMode::kFirst ||
                 (GetEnvInt("BEAM", 0) <= 0 && !viz::Recording() && !TierUpPolicy().StartsOptimized(ast)));
  KernelRef first = tiered ? GenerateFirstTier(ast, device, *first_tier) : nullptr;
  KernelRef optimized = tiered ? nullptr : GenerateOptimized(ast, device);
  auto kernel = std::make_shared<TieredKernel>(ast, device, mode, std::move(first), std::move(optimized));
  std::lock_guard<std::mutex> lock(mu_);
  kernels_[std::make_pair(ast, &device)] = kernel;
  return kernel;
}

std::shared_ptr<TieredKernel> KernelCache::Find(const UOpRef& ast, runtime::Device& device) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = kernels_.find(std::make_pair(ast, &device));
  if (it == kernels_.end() || it->second->Failed()) return nullptr;
  return it->second;
}

}  // namespace tg::compiler
