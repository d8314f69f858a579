#include "compiler/linearize.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/codegen/expander.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

using RangeSet = std::vector<const UOp*>;  // sorted by pointer: small, cheap to merge

RangeSet Union(const RangeSet& a, const RangeSet& b) {
  RangeSet out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool Subset(const RangeSet& inner, const RangeSet& outer) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

int64_t RangeId(const UOpRef& r) { return r->arg_as<int64_t>(); }

// The identity element of a reduction: what the accumulator starts from.
UOpRef ReduceIdentity(Ops op, DType vector_dtype) {
  DType dtype = vector_dtype.base();  // a vector accumulator starts with every lane at identity
  switch (op) {
    case Ops::kAdd: return UOp::Const(dtype, int64_t{0});
    case Ops::kMul: return UOp::Const(dtype, int64_t{1});
    case Ops::kMax:
      if (dtype.is_float()) return UOp::Const(dtype, -std::numeric_limits<double>::infinity());
      return UOp::Const(dtype, DTypeMinInt(dtype));
    default: throw Error("linearize: unsupported reduce op " + std::string(OpName(op)));
  }
}

class Linearizer {
 public:
  std::vector<UOpRef> Run(const UOpRef& sink) {
    scopes_.emplace_back();
    for (const UOpRef& u : sink->toposort())
      if (u->op() == Ops::kReduce) all_reduces_.push_back(u);
    std::vector<UOpRef> loops;  // the output loops every store runs in, outermost first
    for (const UOpRef& u : sink->toposort())
      if (u->op() == Ops::kRange && !IsReduceRange(u, sink)) loops.push_back(u);
    std::sort(loops.begin(), loops.end(),
              [](const UOpRef& a, const UOpRef& b) { return RangeId(a) < RangeId(b); });
    OpenLoops(loops, sink);
    for (const UOpRef& store : sink->src()) Emit(store);
    CloseLoops(loops);
    return std::move(out_);
  }

 private:
  // Ranges a node depends on, minus the ones a REDUCE below it has already closed.
  const RangeSet& Ranges(const UOpRef& u) {
    auto it = ranges_.find(u.get());
    if (it != ranges_.end()) return it->second;
    RangeSet set;
    if (u->op() == Ops::kRange) set = {u.get()};
    for (const UOpRef& s : u->src()) set = Union(set, Ranges(s));
    if (u->op() == Ops::kReduce) {
      RangeSet closed;
      for (size_t i = 1; i < u->src().size(); ++i) closed.push_back(u->src(i).get());
      std::sort(closed.begin(), closed.end());
      RangeSet kept;
      std::set_difference(set.begin(), set.end(), closed.begin(), closed.end(),
                          std::back_inserter(kept));
      set = std::move(kept);
    }
    return ranges_.emplace(u.get(), std::move(set)).first->second;
  }

  bool IsReduceRange(const UOpRef& range, const UOpRef& sink) {
    if (reduce_ranges_.empty())
      for (const UOpRef& u : sink->toposort())
        if (u->op() == Ops::kReduce)
          for (size_t i = 1; i < u->src().size(); ++i) reduce_ranges_.insert(u->src(i).get());
    return reduce_ranges_.contains(range.get());
  }

  bool Visible(const UOp* u) const {
    for (const auto& scope : scopes_)
      if (scope.contains(u)) return true;
    return false;
  }

  void Push(const UOpRef& u) {
    out_.push_back(u);
    scopes_.back().insert(u.get());
  }

  // Opens |loops| in order; before each, emits the parts of |body| that need only open loops.
  void OpenLoops(const std::vector<UOpRef>& loops, const UOpRef& body) {
    for (const UOpRef& loop : loops) {
      HoistInvariants(body);
      Emit(loop->src(0));  // the trip count
      Push(loop);
      open_.push_back(loop.get());
      std::sort(open_.begin(), open_.end());
      scopes_.emplace_back();
    }
  }

  void CloseLoops(const std::vector<UOpRef>& loops) {
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      scopes_.pop_back();
      open_.erase(std::find(open_.begin(), open_.end(), it->get()));
      out_.push_back(UOp::Make(Ops::kEnd, dtypes::void_, {*it}));
    }
  }

  void HoistInvariants(const UOpRef& body) {
    for (const UOpRef& u : body->toposort()) {
      Ops op = u->op();
      if (op == Ops::kRange || op == Ops::kStore || op == Ops::kSink || op == Ops::kReduce) continue;
      // A barrier (and the partial reduce and store it orders) goes before the loop that reads
      // what it publishes: inside, every iteration would wait again and store again.
      if (Subset(Ranges(u), open_) && (op == Ops::kBarrier || !ContainsReduce(u))) Emit(u);
    }
  }

  bool ContainsReduce(const UOpRef& u) {
    auto it = has_reduce_.find(u.get());
    if (it != has_reduce_.end()) return it->second;
    bool found = u->op() == Ops::kReduce;
    for (const UOpRef& s : u->src()) found = found || ContainsReduce(s);
    return has_reduce_.emplace(u.get(), found).first->second;
  }

  void Emit(const UOpRef& u) {
    if (Visible(u.get())) return;
    if (u->op() == Ops::kRange)
      throw Error("linearize: RANGE " + std::to_string(RangeId(u)) + " used outside its loop");
    if (u->op() == Ops::kReduce) return EmitReduce(u);
    for (const UOpRef& s : u->src()) Emit(s);
    Push(u);
  }

  // Reduces over the same loops with independent values share one loop nest (the accumulators
  // of a register tile); |reduce| is emitted with every such sibling not emitted yet.
  std::vector<UOpRef> SiblingsOf(const UOpRef& reduce) {
    std::vector<UOpRef> group{reduce};
    if (ContainsReduce(reduce->src(0))) return group;
    for (const UOpRef& other : all_reduces_) {
      if (other == reduce || Visible(other.get()) || ContainsReduce(other->src(0))) continue;
      if (!std::equal(other->src().begin() + 1, other->src().end(), reduce->src().begin() + 1,
                      reduce->src().end()))
        continue;
      if (Subset(Ranges(other), open_)) group.push_back(other);
    }
    return group;
  }

  void EmitReduce(const UOpRef& reduce) {
    std::vector<UOpRef> group = SiblingsOf(reduce);
    std::vector<UOpRef> accs, values;
    for (const UOpRef& r : group) {
      Ops op = r->arg_as<ReduceArg>().op;
      UOpRef acc = UOp::Make(Ops::kDefineAcc, r->dtype(), {ReduceIdentity(op, r->dtype()), r}, next_acc_++);
      Emit(acc->src(0));
      Push(acc);
      accs.push_back(acc);
      values.push_back(r->src(0));
    }
    std::vector<UOpRef> loops(reduce->src().begin() + 1, reduce->src().end());
    OpenLoops(loops, UOp::Sink(values));
    std::vector<UOpRef> updates;
    for (size_t i = 0; i < group.size(); ++i)
      updates.push_back(CombineReduced(group[i]->arg_as<ReduceArg>().op, accs[i], values[i]));
    // What each update reads, not always the value itself: a matrix instruction folds the accumulator
    // in (WMMA(a, b, acc)), and its product with zero would be dead work the device still runs.
    for (const UOpRef& updated : updates)
      for (const UOpRef& s : updated->src()) Emit(s);
    for (size_t i = 0; i < group.size(); ++i) {
      const UOpRef& updated = updates[i];
      Push(updated);
      Push(UOp::Make(Ops::kAssign, group[i]->dtype(), {accs[i], updated}));
    }
    CloseLoops(loops);
    for (const UOpRef& r : group) Push(r);
  }

  std::vector<UOpRef> out_;
  std::vector<absl::flat_hash_set<const UOp*>> scopes_;
  RangeSet open_;
  absl::flat_hash_map<const UOp*, RangeSet> ranges_;
  absl::flat_hash_map<const UOp*, bool> has_reduce_;
  absl::flat_hash_set<const UOp*> reduce_ranges_;
  std::vector<UOpRef> all_reduces_;
  int64_t next_acc_ = 0;
};

}  // namespace

std::vector<UOpRef> Linearize(const UOpRef& sink) { return Linearizer().Run(sink); }

}  // namespace tg::compiler
