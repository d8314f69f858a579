#include "compiler/schedule/fusion_rules.h"

#include <algorithm>
#include <utility>

namespace tg::compiler {
namespace {

// ALU work of one op as the CPU renders it: transcendentals are lowered to polynomials of about
// twenty operations, divisions and square roots cost a few.
int OpCost(Ops op) {
  switch (op) {
    case Ops::kExp2:
    case Ops::kLog2:
    case Ops::kSin: return 20;
    case Ops::kThreefry: return 30;
    case Ops::kSqrt:
    case Ops::kReciprocal:
    case Ops::kFdiv:
    case Ops::kIdiv:
    case Ops::kMod: return 4;
    default: return IsAlu(op) ? 1 : 0;
  }
}

// Evaluations of |source| per evaluation of its consumer |c|, per element: a broadcast reads each
// element once per copy, a shrink skips some; a reduce reads each element once; a pad's border
// reads nothing.
double EvaluationsPerElement(const UOp* c, const UOp* source) {
  if (c->op() == Ops::kReduce || c->op() == Ops::kPad || source->numel() == 0) return 1;
  return static_cast<double>(c->numel()) / static_cast<double>(source->numel());
}

}  // namespace

bool FusionRules::StoreInstead(const UOp* u) {
  if (realized_.contains(u) || !consumers_.contains(u)) return false;
  if (u->op() == Ops::kReduce) return StoreNestedReduce(u);
  return IsAlu(u->op()) && StoreElementwise(u);
}

bool FusionRules::StoreNestedReduce(const UOp* reduce) {
  if (reduce->numel() == 0 || reduce->src(0)->numel() / reduce->numel() < kLongNestedLoop) return false;
  const std::vector<Reader>& readers = ReadersOf(reduce);
  return std::any_of(readers.begin(), readers.end(), [](const Reader& r) { return r.in_reduce; });
}

bool FusionRules::StoreElementwise(const UOp* u) {
  int cost = ChainCost(u, kExpensiveChain);
  if (cost < kCheapestRepeatedChain) return false;
  double in_reduce = 0;
  for (const Reader& r : ReadersOf(u))
    if (r.in_reduce) in_reduce += r.per_element;
  if (cost >= kExpensiveChain) return in_reduce >= 2;
  return cost * (in_reduce / kTileReuse) >= kExpensiveChain;
}

// Walks |u|'s fused sources: ALU ops cost their work, everything the kernel would load (a buffer, a
// reduce, a realized node) one load. A broadcast operand is one load too: it is evaluated over a
// smaller index space and judged on its own. Stops counting at |enough|.
int FusionRules::ChainCost(const UOp* u, int enough) const {
  int cost = -1;  // the load that reading the stored chain back costs
  absl::flat_hash_set<const UOp*> seen;
  std::vector<const UOp*> stack{u};
  while (!stack.empty() && cost < enough) {
    const UOp* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second || n->op() == Ops::kConst) continue;
    bool leaf = (n != u && realized_.contains(n)) || n->op() == Ops::kExpand ||
                !(IsAlu(n->op()) || IsMovement(n->op()));
    if (leaf) {
      ++cost;
      continue;
    }
    cost += OpCost(n->op());
    for (const UOpRef& s : n->src()) stack.push_back(s.get());
  }
  return cost;
}

// Where |u| is evaluated, computed from its consumers' (post-order over consumer edges, iterative:
// chains can be thousands of nodes deep). Paths that fork and rejoin inside one kernel read the same
// element: per kernel the largest count counts, not their sum.
const std::vector<FusionRules::Reader>& FusionRules::ReadersOf(const UOp* u) {
  static const std::vector<const UOp*> kNone;
  auto users = [&](const UOp* n) -> const std::vector<const UOp*>& {
    auto it = consumers_.find(n);
    return it == consumers_.end() ? kNone : it->second;
  };
  std::vector<const UOp*> stack{u};
  while (!stack.empty()) {
    const UOp* n = stack.back();
    if (readers_.contains(n)) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    for (const UOp* c : users(n))
      if (!realized_.contains(c) && !readers_.contains(c)) stack.push_back(c), ready = false;
    if (!ready) continue;
    stack.pop_back();
    absl::flat_hash_map<std::pair<const UOp*, bool>, double> merged;
    for (const UOp* c : users(n)) {
      double f = EvaluationsPerElement(c, n);
      bool reduce = c->op() == Ops::kReduce;
      auto add = [&](const UOp* kernel, double per_element, bool in_reduce) {
        double& slot = merged[{kernel, in_reduce}];
        slot = std::max(slot, per_element);
      };
      if (realized_.contains(c)) add(c, f, reduce);
      else
        for (const Reader& r : readers_.at(c)) add(r.kernel, r.per_element * f, r.in_reduce || reduce);
    }
    std::vector<Reader>& out = readers_[n];
    for (const auto& [key, per_element] : merged) out.push_back({key.first, per_element, key.second});
  }
  return readers_.at(u);
}

}  // namespace tg::compiler
