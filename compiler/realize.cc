#include "compiler/compiler.h"

#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "compiler/schedule/allreduce.h"
#include "compiler/schedule/bound_variables.h"
#include "compiler/schedule/buffer_node.h"
#include "compiler/errors.h"
#include "compiler/codegen/beam.h"
#include "compiler/codegen/codegen.h"
#include "compiler/kernel_cache.h"
#include "compiler/schedule/multi.h"
#include "compiler/schedule/schedule.h"
#include "compiler/schedule/schedule_cache.h"
#include "compiler/viz/viz_record.h"
#include "ir/env.h"
#include "ir/error.h"
#include "ir/rewrite_trace.h"
#include "runtime/trace_recorder.h"

namespace tg::compiler {
namespace {

runtime::Device& DeviceOf(const ScheduleItem& item) {
  return item.runs_on != nullptr ? *item.runs_on : DeviceNamed(item.device);
}

// The program of |compiled|, waiting for its compile; a failed compile is a tg::Error with the log.
const runtime::Program& ProgramOf(const CompiledKernel& compiled, const runtime::Device& device) {
  // A host thread blocked on a compile is neither host work nor the compile itself: the trace says so.
  if (runtime::Profiling() && compiled.program.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    runtime::TraceSpan wait("wait", "wait for " + compiled.kernel.name);
    compiled.program.wait();
  }
  const runtime::ProgramCache::Result& program = compiled.program.get();
  if (!program.ok())
    throw Error("compiling kernel " + compiled.kernel.name + " for " + device.name() +
                " failed: " + std::string(program.status().message()) + "\nsource:\n" +
                compiled.kernel.source.source);
  return **program;
}

// Starts every kernel of |items| before the first runs, so their compiles overlap each other and the
// launches of the kernels ready before them. Under BEAM a search times candidates on the device and
// compiles in the background would skew it, so kernels are then started one by one as they run. A
// kernel whose codegen fails is left for RunKernel, which raises the error in schedule order.
using StartedKernels = absl::InlinedVector<std::shared_ptr<TieredKernel>, 4>;  // a realize's few kernels, on the stack

StartedKernels StartKernels(const std::vector<ScheduleItem>& items) {
  StartedKernels kernels(items.size());
  std::optional<bool> searching;  // read only on a miss: a replay finds every kernel
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind != ScheduleItem::Kind::kKernel) continue;
    runtime::Device& device = DeviceOf(items[i]);
    if ((kernels[i] = KernelCache::Global().Find(items[i].ast, device))) continue;
    if (!searching) searching = GetEnvInt("BEAM", 0) > 0;
    if (*searching) continue;
    try {
      kernels[i] = KernelCache::Global().Start(items[i].ast, device);
    } catch (const Error&) {
    }
  }
  return kernels;
}

void PrintKernelTime(const runtime::Device& device, const CompiledKernel& compiled,
                     const std::vector<UOpRef>& buffers, uint64_t elapsed_ns) {
  static int64_t kernel_count = 0;
  double bytes = 0;
  for (const UOpRef& b : buffers) bytes += RuntimeBuffer(b)->nbytes();
  double us = elapsed_ns / 1e3;
  std::fprintf(stderr, "*** %-8s %5lld %-28s t%d  bufs %2zu  tm %10.2fus  (%8.2f GB/s)\n",
               device.name().c_str(), static_cast<long long>(kernel_count++), compiled.kernel.name.c_str(),
               compiled.tier, buffers.size(), us, us > 0 ? bytes / (us * 1e3) : 0.0);
}

// |optimized|: a tg::Jit's capture or replay, which run the optimized tier (docs/tiers.md).
void RunKernel(const ScheduleItem& item, std::shared_ptr<TieredKernel> started, bool optimized) {
  runtime::Device& device = DeviceOf(item);
  std::shared_ptr<TieredKernel> tiered = started ? std::move(started) : KernelCache::Global().Start(item.ast, device);
  KernelRef compiled_ref = optimized ? tiered->Optimized() : tiered->ForLaunch();
  const CompiledKernel& compiled = *compiled_ref;
  const runtime::Program& program = ProgramOf(compiled, device);
  // On the stack for the usual few buffers: a launch of a cached kernel allocates nothing here.
  absl::InlinedVector<runtime::KernelArg, 16> args;
  for (const UOpRef& b : item.buffers) {
    runtime::Buffer* buffer = RuntimeBuffer(b);
    ThrowIfError(buffer->EnsureAllocated());
    args.push_back(runtime::KernelArg::Buf(buffer));
  }
  if (item.var_values.size() != item.variables.size())
    throw Error("kernel " + compiled.kernel.name + " takes " + std::to_string(item.variables.size()) +
                " variables but its launch has " + std::to_string(item.var_values.size()) + " values");
  for (int64_t value : item.var_values) args.push_back(runtime::KernelArg::I32(static_cast<int32_t>(value)));
  bool timed = DebugLevel() >= 2;
  uint64_t elapsed_ns = 0;
  ThrowIfError(device.Launch(program, compiled.kernel.dims, args,
                             timed ? &elapsed_ns : nullptr));
  if (timed) PrintKernelTime(device, compiled, item.buffers, elapsed_ns);
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

CapturedKernel CapturedKernelOf(const ScheduleItem& item) {
  runtime::Device& device = DeviceOf(item);
  KernelRef compiled = KernelCache::Global().Start(item.ast, device)->Optimized();
  ProgramOf(*compiled, device);  // throws the compile's error
  return {*compiled->program.get(), compiled->kernel.dims, compiled->kernel.name};
}

void RunItems(const std::vector<ScheduleItem>& items, bool replay) {
  StartedKernels kernels = StartKernels(items);
  const bool optimized = replay || Capturing();
  for (size_t i = 0; i < items.size(); ++i) {
    RecordForCapture(items[i]);
    if (items[i].kind == ScheduleItem::Kind::kCopy) RunCopy(items[i]);
    else RunKernel(items[i], std::move(kernels[i]), optimized);
  }
}

namespace {

std::vector<UOpRef> RealizeOnDevices(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
                                     const VariableValues& values) {
  runtime::TraceSpan realize("realize", "realize");
  Schedule schedule = [&] {
    runtime::TraceSpan span("schedule", "schedule");
    Schedule made = CachedSchedule(roots, devices);
    SetVariableValues(made.items, values);
    if (span.active()) {
      span.Arg(runtime::TraceArg::Num("tensors", static_cast<double>(roots.size())));
      span.Arg(runtime::TraceArg::Num("items", static_cast<double>(made.items.size())));
    }
    return made;
  }();
  viz::RecordSchedule(schedule);
  if (DebugLevel() >= 1 && !schedule.items.empty())
    std::fprintf(stderr, "schedule: %zu items for %zu tensors\n", schedule.items.size(), roots.size());
  RunItems(schedule.items);
  return schedule.realized;
}

// A realized view keeps the symbolic lengths of its tensor, as expressions of variables; bound again to
// this realize's values, later graphs that read it need no binding of their own.
std::vector<UOpRef> Rebound(std::vector<UOpRef> views, const VariableValues& values) {
  if (values.empty()) return views;
  for (UOpRef& view : views)
    if (view->lengths() != nullptr) view = BindVariables(view, values);
  return views;
}

}  // namespace

bool IsRealized(const UOpRef& u) {
  if (BufferOfView(u)) return true;
  if (u->op() != Ops::kMulti) return false;
  for (const UOpRef& s : u->src())
    if (!BufferOfView(s)) return false;
  return true;
}

std::vector<UOpRef> Realize(const std::vector<UOpRef>& bound_roots, const std::vector<std::string>& devices) {
  viz::RecordRealize(bound_roots);
  // The values of bound variables go to the launches, not into the graph the caches key on.
  UnboundGraph unbound = StripBinds(bound_roots);
  const std::vector<UOpRef>& roots = unbound.roots;
  if (!HasMulti(roots, devices)) return Rebound(RealizeOnDevices(roots, devices, unbound.values), unbound.values);
  // Sharded tensors: one graph per device (compiler/schedule/multi.h), ALLREDUCEs lowered, then one schedule.
  SpmdRoots spmd = SplitMulti(roots, devices);
  std::vector<UOpRef> realized =
      Rebound(RealizeOnDevices(LowerAllreduces(spmd.roots), spmd.devices, unbound.values), unbound.values);
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
