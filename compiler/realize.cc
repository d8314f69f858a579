#include "compiler/compiler.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "compiler/schedule/allreduce.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/errors.h"
#include "compiler/codegen/beam.h"
#include "compiler/codegen/codegen.h"
#include "compiler/schedule/multi.h"
#include "compiler/schedule/schedule.h"
#include "compiler/schedule/schedule_cache.h"
#include "ir/env.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

struct CompiledKernel {
  GeneratedKernel kernel;
  std::shared_ptr<runtime::Program> program;
};

// Kernels by (AST, device). ASTs are hash-consed, so an equal kernel is the same node and skips
// codegen entirely: the cost of a repeated realize is a lookup and a launch.
class KernelCache {
 public:
  static KernelCache& Global() {
    static KernelCache* cache = new KernelCache();
    return *cache;
  }

  const CompiledKernel& Get(const UOpRef& ast, runtime::Device& device) {
    std::lock_guard<std::mutex> lock(mu_);
    auto key = std::make_pair(ast, &device);
    if (auto it = kernels_.find(key); it != kernels_.end()) return *it->second;
    auto compiled = std::make_unique<CompiledKernel>();
    // BEAM=N's winner (searched on this device, or from the disk cache), else the heuristic's opts.
    std::optional<std::vector<Opt>> opts = ChooseOpts(ast, device);
    compiled->kernel = opts ? GenerateKernel(ast, TargetOf(device), *opts) : GenerateKernel(ast, TargetOf(device));
    if (DebugLevel() >= 4)
      std::fprintf(stderr, "--- %s on %s ---\n%s\n", compiled->kernel.name.c_str(),
                   device.name().c_str(), compiled->kernel.source.source.c_str());
    absl::StatusOr<std::shared_ptr<runtime::Program>> program =
        device.GetProgram(compiled->kernel.source);
    if (!program.ok())
      throw Error("compiling kernel " + compiled->kernel.name + " for " + device.name() +
                  " failed: " + std::string(program.status().message()) + "\nsource:\n" +
                  compiled->kernel.source.source);
    compiled->program = *std::move(program);
    return *kernels_.emplace(key, std::move(compiled)).first->second;
  }

 private:
  std::mutex mu_;  // not absl::Mutex, which TSan cannot see (ir/uop.cc)
  absl::flat_hash_map<std::pair<UOpRef, runtime::Device*>, std::unique_ptr<CompiledKernel>> kernels_;
};

void PrintKernelTime(const runtime::Device& device, const GeneratedKernel& kernel,
                     const std::vector<UOpRef>& buffers, uint64_t elapsed_ns) {
  static int64_t kernel_count = 0;
  double bytes = 0;
  for (const UOpRef& b : buffers) bytes += RuntimeBuffer(b)->nbytes();
  double us = elapsed_ns / 1e3;
  std::fprintf(stderr, "*** %-8s %5lld %-28s bufs %2zu  tm %10.2fus  (%8.2f GB/s)\n",
               device.name().c_str(), static_cast<long long>(kernel_count++), kernel.name.c_str(),
               buffers.size(), us, us > 0 ? bytes / (us * 1e3) : 0.0);
}

void RunKernel(const ScheduleItem& item) {
  runtime::Device& device = item.runs_on != nullptr ? *item.runs_on : DeviceNamed(item.device);
  const CompiledKernel& compiled = KernelCache::Global().Get(item.ast, device);
  std::vector<runtime::KernelArg> args;
  for (const UOpRef& b : item.buffers) {
    runtime::Buffer* buffer = RuntimeBuffer(b);
    ThrowIfError(buffer->EnsureAllocated());
    args.push_back(runtime::KernelArg::Buf(buffer));
  }
  bool timed = DebugLevel() >= 2;
  uint64_t elapsed_ns = 0;
  ThrowIfError(device.Launch(*compiled.program, compiled.kernel.dims, args,
                             timed ? &elapsed_ns : nullptr));
  if (timed) PrintKernelTime(device, compiled.kernel, item.buffers, elapsed_ns);
}

// Directly between devices of one plugin that has copy_d2d, else through host memory (Buffer::CopyFrom).
void RunCopy(const ScheduleItem& item) {
  runtime::Buffer* dst = RuntimeBuffer(item.buffers[0]);
  runtime::Buffer* src = RuntimeBuffer(item.buffers[1]);
  // The node's own size: planned memory may be a larger block shared with other buffers.
  const UOpRef& from = item.buffers[1];
  uint64_t bytes = static_cast<uint64_t>(from->arg_as<BufferArg>().size) * from->dtype().itemsize();
  ThrowIfError(dst->CopyFrom(*src, bytes));
}

}  // namespace

void RunItems(const std::vector<ScheduleItem>& items) {
  for (const ScheduleItem& item : items) {
    RecordForCapture(item);
    if (item.kind == ScheduleItem::Kind::kCopy) RunCopy(item);
    else RunKernel(item);
  }
}

namespace {

std::vector<UOpRef> RealizeOnDevices(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  Schedule schedule = CachedSchedule(roots, devices);
  if (DebugLevel() >= 1 && !schedule.items.empty())
    std::fprintf(stderr, "schedule: %zu items for %zu tensors\n", schedule.items.size(), roots.size());
  RunItems(schedule.items);
  return schedule.realized;
}

}  // namespace

bool IsRealized(const UOpRef& u) {
  if (BufferOfView(u)) return true;
  if (u->op() != Ops::kMulti) return false;
  for (const UOpRef& s : u->src())
    if (!BufferOfView(s)) return false;
  return true;
}

std::vector<UOpRef> Realize(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices) {
  if (!HasMulti(roots, devices)) return RealizeOnDevices(roots, devices);
  // Sharded tensors: one graph per device (compiler/schedule/multi.h), ALLREDUCEs lowered, then one schedule.
  SpmdRoots spmd = SplitMulti(roots, devices);
  std::vector<UOpRef> realized = RealizeOnDevices(LowerAllreduces(spmd.roots), spmd.devices);
  std::vector<UOpRef> out;
  for (const SpmdRoots::Origin& origin : spmd.origins) {
    if (!origin.multi) {
      out.push_back(realized[origin.roots[0]]);
      continue;
    }
    std::vector<UOpRef> shards;
    for (size_t i : origin.roots) shards.push_back(realized[i]);
    out.push_back(MakeMulti(std::move(shards), origin.multi->axis, origin.multi->devices));
  }
  return out;
}

}  // namespace tg::compiler
