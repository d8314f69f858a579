#include "compiler/codegen/gpudims.h"

#include <limits>

#include "ir/pattern_matcher.h"

namespace tg::compiler {
namespace {

struct GpuDimsContext {
  const UOp* loop;
  UOpRef special;
};

// The output loop with the smallest id: rangeify numbers output axes first, outermost first.
UOpRef OutermostOutputLoop(const UOpRef& sink) {
  UOpRef best;
  for (const UOpRef& store : sink->src())
    for (const UOpRef& u : store->src(0)->toposort())
      if (u->op() == Ops::kRange && (!best || u->arg_as<int64_t>() < best->arg_as<int64_t>()))
        best = u;
  return best;
}

const PatternMatcher& ReplaceLoopRules() {
  static const PatternMatcher* rules = new PatternMatcher({
      {Pat::Op(Ops::kRange, {}, "r").allow_any_len(),
       [](const Match& m) -> UOpRef {
         auto& ctx = m.ctx<GpuDimsContext>();
         return m["r"].get() == ctx.loop ? ctx.special : nullptr;
       }},
  });
  return *rules;
}

}  // namespace

UOpRef AddGpuDims(const UOpRef& sink, std::array<uint32_t, 3>& num_groups) {
  num_groups = {1, 1, 1};
  UOpRef loop = OutermostOutputLoop(sink);
  if (!loop) return sink;
  int64_t extent = loop->src(0)->const_int();
  if (extent > std::numeric_limits<uint32_t>::max()) return sink;  // stays a loop
  num_groups[0] = static_cast<uint32_t>(extent);
  GpuDimsContext ctx{loop.get(), UOp::Special("gidx0", extent, loop->dtype())};
  return graph_rewrite(sink, ReplaceLoopRules(), &ctx);
}

}  // namespace tg::compiler
