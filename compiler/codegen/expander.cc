#include "compiler/codegen/expander.h"

#include <algorithm>

#include "compiler/codegen/shared_factor.h"
#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

UOpRef Lane(const UOpRef& u, const UOpRef& range, int64_t value) {
  return Substitute(u, {{range.get(), UOp::Const(range->dtype(), value)}});
}

}  // namespace

namespace {

bool IsZeroTile(const UOpRef& c) {
  return c->op() == Ops::kVectorize &&
         std::all_of(c->src().begin(), c->src().end(), [](const UOpRef& l) { return l->is_const_value(int64_t{0}); });
}

// acc + WMMA(a, b, 0) is WMMA(a, b, acc): the instruction accumulates itself. A chain of them (an
// unrolled k) takes acc at its start.
UOpRef AccumulateInto(const UOpRef& acc, const UOpRef& wmma) {
  const UOpRef& c = wmma->src(2);
  UOpRef start = IsZeroTile(c) ? acc : c->op() == Ops::kWmma ? AccumulateInto(acc, c) : nullptr;
  return start ? wmma->replace_src({wmma->src(0), wmma->src(1), start}) : nullptr;
}

}  // namespace

UOpRef CombineReduced(Ops op, const UOpRef& a, const UOpRef& b) {
  if (op == Ops::kAdd && b->op() == Ops::kWmma)
    if (UOpRef folded = AccumulateInto(a, b)) return folded;
  // Bools combine logically, as in tinygrad's symbolic rules: MAX and ADD are OR, MUL is AND. An
  // ordered MAX is wrong on the C renderer's vector bools, whose true lanes are -1 (so -1 < 0).
  if (a->dtype().is_bool()) op = op == Ops::kMul ? Ops::kAnd : Ops::kOr;
  return UOp::Make(op, a->dtype(), {a, b});
}

UOpRef UnrollOutputAxis(const UOpRef& sink, const UOpRef& range) {
  int64_t extent = range->src(0)->const_int();
  std::vector<UOpRef> stores;
  for (const UOpRef& store : sink->src())
    for (int64_t c = 0; c < extent; ++c) stores.push_back(Lane(store, range, c));
  return Simplify(UOp::Sink(std::move(stores)));
}

UOpRef UnrollReduceAxis(const UOpRef& sink, const UOpRef& range) {
  int64_t extent = range->src(0)->const_int();
  NodeMap done;
  for (const UOpRef& u : sink->toposort()) {
    std::vector<UOpRef> src;
    for (const UOpRef& s : u->src()) src.push_back(done.at(s.get()));
    bool over_range = u->op() == Ops::kReduce &&
                      std::find(u->src().begin() + 1, u->src().end(), range) != u->src().end();
    if (!over_range) {
      done[u.get()] = u->replace_src(std::move(src));
      continue;
    }
    Ops op = u->arg_as<ReduceArg>().op;
    UOpRef folded = Lane(src[0], range, 0);
    for (int64_t c = 1; c < extent; ++c) {
      folded = CombineReduced(op, folded, Lane(src[0], range, c));
      if (op == Ops::kAdd)
        if (UOpRef factored = SharedFactorRules().Rewrite(folded)) folded = factored;
    }
    std::vector<UOpRef> kept{folded};
    for (size_t i = 1; i < src.size(); ++i)
      if (src[i] != range) kept.push_back(src[i]);
    done[u.get()] = kept.size() == 1 ? folded : UOp::Make(Ops::kReduce, u->dtype(), std::move(kept), u->arg());
  }
  return Simplify(done.at(sink.get()));
}

}  // namespace tg::compiler
