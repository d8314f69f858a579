#include "compiler/codegen/gated_index.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

using Wide = __int128;
using Bounds = std::pair<Wide, Wide>;
using VarBounds = absl::flat_hash_map<const UOp*, std::pair<UOpRef, Bounds>>;

bool IsLoopVariable(const UOpRef& u) {
  return u->op() == Ops::kRange || u->op() == Ops::kSpecial || u->op() == Ops::kDefineVar;
}

struct Term {
  UOpRef v;
  Wide f;  // the term is v*f
};

// |e| as sum(v*f) + k over its ADD tree; non-sum leaves are terms with f = 1.
std::vector<Term> SplitSum(const UOpRef& e, Wide* k) {
  std::vector<Term> terms;
  std::vector<UOpRef> stack{e};
  while (!stack.empty()) {
    UOpRef u = stack.back();
    stack.pop_back();
    if (u->op() == Ops::kAdd) {
      stack.push_back(u->src(0));
      stack.push_back(u->src(1));
    } else if (u->is_const()) {
      *k += u->const_int();
    } else if (u->op() == Ops::kMul && u->src(1)->is_const()) {
      terms.push_back({u->src(0), u->src(1)->const_int()});
    } else {
      terms.push_back({u, 1});
    }
  }
  return terms;
}

Wide FloorDiv(Wide a, Wide b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
Wide CeilDiv(Wide a, Wide b) { return -FloorDiv(-a, b); }

Bounds Current(const VarBounds& known, const UOpRef& v) {
  auto it = known.find(v.get());
  return it != known.end() ? it->second.second : Bounds{v->vmin(), v->vmax()};
}

// From lo <= e <= hi, tightens the bounds of each loop variable that is a term of |e|: its term lies
// within [lo, hi] minus what every other term can contribute.
void NarrowSum(const UOpRef& e, Wide lo, Wide hi, VarBounds& known) {
  Wide k = 0;
  std::vector<Term> terms = SplitSum(e, &k);
  std::vector<Bounds> range;
  Wide rest_lo = k, rest_hi = k;
  for (const Term& t : terms) {
    Bounds b = IsLoopVariable(t.v) ? Current(known, t.v) : Bounds{t.v->vmin(), t.v->vmax()};
    Wide a = b.first * t.f, c = b.second * t.f;
    range.push_back({std::min(a, c), std::max(a, c)});
    rest_lo += range.back().first;
    rest_hi += range.back().second;
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    if (!IsLoopVariable(t.v) || t.f == 0) continue;
    // f*v >= lo - (rest_hi - this term's hi), f*v <= hi - (rest_lo - this term's lo)
    Wide term_lo = lo - (rest_hi - range[i].second), term_hi = hi - (rest_lo - range[i].first);
    Bounds b = Current(known, t.v);
    Wide v_lo = t.f > 0 ? CeilDiv(term_lo, t.f) : CeilDiv(term_hi, t.f);
    Wide v_hi = t.f > 0 ? FloorDiv(term_hi, t.f) : FloorDiv(term_lo, t.f);
    Bounds n{std::max(b.first, v_lo), std::min(b.second, v_hi)};
    if (n != b) known[t.v.get()] = {t.v, n};
  }
}

// Walks the AND of |gate|'s clauses; x < c and c < x bound the sum x.
void NarrowByGate(const UOpRef& gate, VarBounds& known) {
  if (gate->op() == Ops::kAnd && gate->dtype().is_bool()) {
    NarrowByGate(gate->src(0), known);
    NarrowByGate(gate->src(1), known);
    return;
  }
  if (gate->op() != Ops::kCmpLt || !gate->src(0)->dtype().is_int()) return;
  const UOpRef &a = gate->src(0), &b = gate->src(1);
  if (b->is_const() && !a->is_const()) NarrowSum(a, a->vmin(), Wide(b->const_int()) - 1, known);
  if (a->is_const() && !b->is_const()) NarrowSum(b, Wide(a->const_int()) + 1, b->vmax(), known);
}

// |idx| simplified where |gate| holds: each variable the gate bounds is swapped for a stand-in with
// those bounds while the symbolic rules run, then swapped back.
UOpRef SimplifyUnder(const UOpRef& idx, const UOpRef& gate) {
  VarBounds known;
  NarrowByGate(gate, known);
  NodeMap to_standin, back;
  int n = 0;
  for (const auto& [_, entry] : known) {
    const auto& [v, b] = entry;
    if (b.first > b.second) return idx;  // the gate never holds: nothing is read, leave it alone
    UOpRef standin = UOp::Variable("<gate-bounded " + std::to_string(n++) + ">", static_cast<int64_t>(b.first),
                                   static_cast<int64_t>(b.second), v->dtype());
    to_standin[v.get()] = standin;
    back[standin.get()] = v;
  }
  if (to_standin.empty()) return idx;
  return Substitute(Simplify(Substitute(idx, to_standin)), back);
}

}  // namespace

UOpRef SimplifyGatedIndices(const UOpRef& sink) {
  NodeMap replace;
  for (const UOpRef& u : sink->toposort()) {
    if (u->op() != Ops::kIndex || u->src().size() < 3) continue;
    const UOpRef &idx = u->src(1), &gate = u->src(2);
    if (gate->is_const() || gate->dtype().count() > 1 || !idx->dtype().is_int()) continue;
    UOpRef simpler = SimplifyUnder(idx, gate);
    if (simpler == idx) continue;
    std::vector<UOpRef> src = u->src();
    src[1] = simpler;
    replace[u.get()] = u->replace_src(std::move(src));
  }
  return replace.empty() ? sink : Substitute(sink, replace);
}

}  // namespace tg::compiler
