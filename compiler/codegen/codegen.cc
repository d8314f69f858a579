#include "compiler/codegen/codegen.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_join.h"
#include "compiler/codegen/dtype_decomp.h"
#include "compiler/codegen/expander.h"
#include "compiler/codegen/gated_index.h"
#include "compiler/codegen/gpudims.h"
#include "compiler/codegen/group_reduces.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/codegen/one_hot_reduces.h"
#include "compiler/codegen/one_slot_stores.h"
#include "compiler/codegen/tensor_cores.h"
#include "compiler/codegen/transcendental.h"
#include "compiler/codegen/vector_memory.h"
#include "compiler/codegen/vectorizer.h"
#include "compiler/linearize.h"
#include "compiler/render/renderer.h"
#include "compiler/viz/viz_record.h"
#include "ir/env.h"
#include "ir/error.h"
#include "ir/rewrite_trace.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

GeneratedKernel RenderKernel(const UOpRef& ast, const Kernel& k, const Target& target);

bool IsExpanded(AxisType t) { return t == AxisType::kUpcast || t == AxisType::kUnroll; }

bool FitsAVector(const Kernel::Axis& a) {
  int64_t n = a.extent();
  return IsExpanded(a.type) && n >= 2 && n <= 16 && (n & (n - 1)) == 0;
}

bool Below(const UOp* low, const UOp* high) {
  for (const UOpRef& u : high->toposort())
    if (u.get() == low) return true;
  return false;
}

bool Nested(const UOp* a, const UOp* b) { return a != b && (Below(a, b) || Below(b, a)); }

// The expanded loops that become SIMD vectors, when the renderer has vectors: the first UPCAST/UNROLL
// whose extent fits a vector, and when that is a reduce's UNROLL, the UNROLL of the same width of
// every other REDUCE in the kernel (two reduces fused side by side, each summed on its own vectors);
// empty when none. Reduces nested in one another are not side by side: lane i of the outer one sums
// every lane of the inner one, so one vector cannot carry both.
std::vector<UOpRef> VectorAxes(const Kernel& k, bool vectors) {
  std::vector<UOpRef> out;
  if (!vectors) return out;
  const Kernel::Axis* first = nullptr;
  for (const Kernel::Axis& a : k.axes())
    if (FitsAVector(a)) {
      first = &a;
      break;
    }
  if (first == nullptr) return out;
  out.push_back(first->range);
  const UOp* first_reduce = first->type == AxisType::kUnroll ? k.ReduceOf(first->range) : nullptr;
  if (first_reduce == nullptr) return out;
  std::vector<const UOp*> taken{first_reduce};
  for (const Kernel::Axis& a : k.axes()) {
    if (&a == first || a.type != AxisType::kUnroll || a.extent() != first->extent()) continue;
    const UOp* reduce = k.ReduceOf(a.range);
    if (reduce == nullptr || std::find(taken.begin(), taken.end(), reduce) != taken.end()) continue;
    if (std::any_of(taken.begin(), taken.end(), [&](const UOp* t) { return Nested(t, reduce); })) continue;
    taken.push_back(reduce);
    out.push_back(a.range);
  }
  return out;
}

// Removes the UPCAST/UNROLL loops of |sink| (|k|'s AST after rewrites that keep its loops):
// |vector_axes| become SIMD vectors, the rest are unrolled copies.
UOpRef ExpandAxes(UOpRef sink, const Kernel& k, const std::vector<UOpRef>& vector_axes, const Target& target) {
  for (const Kernel::Axis& a : k.axes()) {
    if (!IsExpanded(a.type) || std::find(vector_axes.begin(), vector_axes.end(), a.range) != vector_axes.end()) continue;
    sink = a.type == AxisType::kUpcast ? UnrollOutputAxis(sink, a.range) : UnrollReduceAxis(sink, a.range);
  }
  for (const UOpRef& axis : vector_axes) sink = VectorizeAxis(sink, axis, target);
  return sink;
}

bool DependsOn(const UOpRef& u, const std::vector<UOpRef>& ranges) {
  if (ranges.empty()) return false;
  for (const UOpRef& s : u->toposort())
    if (std::find(ranges.begin(), ranges.end(), s) != ranges.end()) return true;
  return false;
}

// EXP2/LOG2/SIN the renderer would rather not compute itself become polynomials. TRANSCENDENTAL=0
// keeps every op the dialect can spell, 2 rewrites all of them (tinygrad's knob; for tests).
UOpRef LowerTranscendentals(const UOpRef& sink, const Renderer& renderer, const std::vector<UOpRef>& vector_axes) {
  int mode = GetEnvInt("TRANSCENDENTAL", 1);
  return DecomposeTranscendentals(sink, [&](const UOpRef& u) {
    if (mode >= 2) return false;
    bool vectorized = mode == 1 && DependsOn(u, vector_axes);
    return renderer.NativeTranscendental(u->op(), u->dtype(), vectorized);
  });
}

void PrintLinear(const std::string& name, const std::vector<UOpRef>& ops) {
  std::fprintf(stderr, "--- %s linearized ---\n", name.c_str());
  for (size_t i = 0; i < ops.size(); ++i)
    std::fprintf(stderr, "%4zu %-12s %-10s %s\n", i, std::string(OpName(ops[i]->op())).c_str(),
                 ops[i]->dtype().name().c_str(), ArgString(ops[i]->arg()).c_str());
}

}  // namespace

std::string KernelName(const UOpRef& ast) {
  std::vector<UOpRef> loops;
  bool reduces = false;
  for (const UOpRef& u : ast->toposort()) {
    if (u->op() == Ops::kRange) loops.push_back(u);
    reduces = reduces || u->op() == Ops::kReduce;
  }
  std::sort(loops.begin(), loops.end(), [](const UOpRef& a, const UOpRef& b) {
    return a->arg_as<int64_t>() < b->arg_as<int64_t>();
  });
  std::string name = reduces ? "r" : "E";
  for (const UOpRef& loop : loops)  // a symbolic length shows as its largest value, after an "s"
    name += "_" + (loop->src(0)->is_const() ? std::to_string(loop->src(0)->const_int())
                                            : "s" + std::to_string(loop->src(0)->vmax()));
  return name;
}

// OpenCL C has half arithmetic only with cl_khr_fp16 (Target::renders_half).
void CheckHalfSupport(const UOpRef& ast, const Target& target) {
  if (target.renders_half) return;
  for (const UOpRef& u : ast->toposort())
    if (u->dtype().base() == dtypes::float16)
      throw Error("device " + target.device + " (" + target.description +
                  ") has no float16 support (OpenCL cl_khr_fp16); compute in float32 there (.float_()) or use "
                  "another device");
}

namespace {

// What GROUP and GROUPTOP may use on |target|, or why it has none.
GroupLimits GroupLimitsOf(const Target& target) {
  GroupLimits limits{target.local_mem_bytes, target.max_group_threads, ""};
  if (!target.gpu)
    limits.refusal = "the CPU dialects run a group's items as loops of one thread (use UNROLL for parallel partial sums)";
  else if (!target.shared_memory)
    limits.refusal = "the " + std::string(target.dialect()) + " renderer does not spell local arrays and barriers yet";
  else if (target.local_mem_bytes == 0)
    limits.refusal = "device " + target.device + " reports no local memory";
  return limits;
}

}  // namespace

Kernel StartKernel(const UOpRef& ast, const Target& target) {
  target.renderer();  // a device the compiler cannot render for fails here, before any work
  CheckHalfSupport(ast, target);
  UOpRef simple = viz::TracePass("simplify", ast, [&] { return Simplify(ast); });
  simple = viz::TracePass("pinned ranges", simple, [&] {
    static const PatternMatcher rules = OneHotReduceRules() + OneSlotStoreRules();
    UOpRef collapsed = graph_rewrite(simple, rules);
    return collapsed == simple ? simple : Simplify(collapsed);  // a kernel without one stays as it was
  });
  UOpRef decomposed = viz::TracePass("decompose bfloat16", simple, [&] { return DecomposeBfloat16(simple); });
  std::string no_tensor_cores = "device " + target.device + " (" + std::string(target.dialect()) + ", arch '" +
                                target.arch + "') has none this compiler uses";
  return Kernel(decomposed, target.launch_dims, GroupLimitsOf(target), target.tensor_cores, no_tensor_cores);
}

Kernel StartKernel(const UOpRef& ast, const runtime::DeviceInfo& device) { return StartKernel(ast, Target::For(device)); }

GeneratedKernel GenerateKernel(const UOpRef& ast, const Target& target) {
  Kernel k = StartKernel(ast, target);
  if (GetEnvInt("NOOPT", 0) == 0)
    viz::TracePass("opts (heuristic)", k.ast(), [&] {
      ApplyHeuristic(k, target);
      return k.ast();
    });
  return RenderKernel(ast, k, target);
}

GeneratedKernel GenerateKernel(const UOpRef& ast, const Target& target, const std::vector<Opt>& opts) {
  Kernel k = StartKernel(ast, target);
  viz::TracePass("opts (chosen)", k.ast(), [&] {
    for (const Opt& o : opts) k.Apply(o);
    return k.ast();
  });
  return RenderKernel(ast, k, target);
}

GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device) {
  return GenerateKernel(ast, Target::For(device));
}

GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device, const std::vector<Opt>& opts) {
  return GenerateKernel(ast, Target::For(device), opts);
}

namespace {

// The optimized kernel |k| of |ast| to source text and launch dims.
GeneratedKernel RenderKernel(const UOpRef& ast, const Kernel& k, const Target& target) {
  const Renderer& renderer = target.renderer();
  GeneratedKernel kernel;
  kernel.name = KernelName(ast);
  std::vector<std::string> opts;
  for (const Opt& o : k.applied()) opts.push_back(o.str());
  if (DebugLevel() >= 3 && !opts.empty())
    std::fprintf(stderr, "%s opts: %s\n", kernel.name.c_str(), absl::StrJoin(opts, ", ").c_str());
  std::vector<UOpRef> vector_axes = VectorAxes(k, target.vectors);
  UOpRef lowered = viz::TracePass("transcendentals", k.ast(),
                                  [&] { return LowerTranscendentals(k.ast(), renderer, vector_axes); });
  // Before the UPCAST copies, while the kernel has its one reduce: lanes of a warp then hold the tile.
  std::vector<UOpRef> lanes;
  if (const TensorCore* tc = k.tensor_core())
    lowered = viz::TracePass("tensor cores", lowered, [&] {
      TensorCoreLowering l = LowerTensorCore(lowered, *tc, k.RangesOf(AxisType::kTensorCore));
      lanes.push_back(l.lane);
      return l.sink;
    });
  UOpRef sink =
      viz::TracePass("expand upcast/unroll", lowered, [&] { return ExpandAxes(lowered, k, vector_axes, target); });
  if (target.vector_memory) sink = viz::TracePass("vector memory", sink, [&] { return JoinVectorMemory(sink); });
  std::vector<UOpRef> globals = k.RangesOf(AxisType::kGlobal), locals = k.RangesOf(AxisType::kLocal);
  std::vector<UOpRef> groups = k.RangesOf(AxisType::kGroupReduce);

  sink = viz::TracePass("group reduces", sink, [&] { return ShareGroupReduces(sink, locals, groups); });
  // The innermost loop becomes dimension 0 (x): the one GPUs coalesce and allow to be largest; a
  // group axis is innermost, so GROUP's neighbouring work items read neighbouring elements.
  locals.insert(locals.end(), groups.begin(), groups.end());
  locals.insert(locals.end(), lanes.begin(), lanes.end());
  std::reverse(globals.begin(), globals.end());
  std::reverse(locals.begin(), locals.end());
  sink = SimplifyGatedIndices(
      viz::TracePass("launch dims", sink, [&] { return AddGpuDims(sink, globals, locals, kernel.dims); }));
  if (DebugLevel() >= 5) std::fprintf(stderr, "--- %s kernel AST ---\n%s\n", kernel.name.c_str(), sink->str().c_str());
  std::vector<UOpRef> ops = Linearize(sink);
  if (DebugLevel() >= 6) PrintLinear(kernel.name, ops);
  kernel.source = {std::string(renderer.dialect()), renderer.Render(kernel.name, ops), kernel.name};
  viz::RecordKernel(kernel.name, target.device, opts, kernel.source, kernel.dims);
  return kernel;
}

}  // namespace
}  // namespace tg::compiler
