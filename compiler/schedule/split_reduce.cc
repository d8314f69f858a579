#include "compiler/schedule/split_reduce.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "ir/pattern_matcher.h"

namespace tg::compiler {
namespace {

struct Split {
  size_t axis;
  int64_t parts;
};

// The first reduced axis with a divisor in [kMinSplit, kMaxSplit] (largest first), capped so the
// partials of every output fit in kMaxPartials.
std::optional<Split> ChooseSplit(const UOp& reduce) {
  const UOp& x = *reduce.src(0);
  if (x.lengths() != nullptr) return std::nullopt;  // a symbolic axis cannot be cut into equal parts
  int64_t outputs = std::max<int64_t>(reduce.numel(), 1);
  if (x.numel() / outputs < kSplitRatio) return std::nullopt;
  int64_t most = std::min(kMaxSplit, kMaxPartials / outputs);
  for (int64_t axis : reduce.arg_as<ReduceArg>().axes)
    for (int64_t d = most; d >= kMinSplit; --d)
      if (x.shape()[axis] % d == 0) return Split{static_cast<size_t>(axis), d};
  return std::nullopt;
}

// The stage-one reduces this pass made: read far more than kSplitRatio per output still (a 64M sum's
// 256 partials read 256K each), but splitting them again only adds a kernel.
struct SplitContext {
  absl::flat_hash_set<const UOp*> partials;
  std::vector<UOpRef> keep_alive;  // so a partial's address is not reused by another node
};

// x.reduce(axes) -> x.reshape(.., d, n / d, ..).permute(d first).reduce(axes + 1).contiguous()
//                    .reduce(0).reshape(out): the partials are stored (d, out) so each one's outputs are
// contiguous, the order the combine reads them in.
UOpRef SplitReduce(const Match& m) {
  const UOpRef& reduce = m["r"];
  SplitContext& ctx = m.ctx<SplitContext>();
  if (ctx.partials.contains(reduce.get())) return nullptr;
  std::optional<Split> split = ChooseSplit(*reduce);
  if (!split) return nullptr;
  const UOpRef& x = reduce->src(0);
  const auto& arg = reduce->arg_as<ReduceArg>();
  Shape shape = x->shape();
  shape[split->axis] /= split->parts;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(split->axis), split->parts);
  std::vector<int64_t> order{static_cast<int64_t>(split->axis)};
  for (size_t k = 0; k < shape.size(); ++k)
    if (k != split->axis) order.push_back(static_cast<int64_t>(k));
  // After the permute axis 0 is d and every axis of x sits one further on (the split axis's n / d part
  // where the axis was).
  std::vector<int64_t> axes;
  for (int64_t a : arg.axes) axes.push_back(a + 1);
  UOpRef partial = x->reshape(shape)->permute(order)->reduce(arg.op, axes);
  ctx.partials.insert(partial.get());
  ctx.keep_alive.push_back(partial);
  UOpRef stored = UOp::Make(Ops::kContiguous, partial->dtype(), {partial});
  return stored->reduce(arg.op, {0})->reshape(reduce->shape());
}

}  // namespace

std::vector<UOpRef> SplitLargeReduces(const std::vector<UOpRef>& roots) {
  static const PatternMatcher* rules = new PatternMatcher({
      {Pat::Op(Ops::kReduce, {Pat::Any()}, "r"), SplitReduce},
  });
  SplitContext ctx;
  UOpRef sink = graph_rewrite(UOp::Sink(roots), *rules, &ctx);
  return sink->src();
}

}  // namespace tg::compiler
