#include "compiler/codegen/one_slot_stores.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "compiler/codegen/pinned_range.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

// The ranges |store| loops over: those it mentions that no reduce inside it closes.
std::vector<UOpRef> LoopsOf(const UOpRef& store) {
  std::vector<UOpRef> ranges;
  absl::flat_hash_set<const UOp*> reduced;
  for (const UOpRef& u : store->toposort()) {
    if (u->op() == Ops::kRange) ranges.push_back(u);
    if (u->op() == Ops::kReduce)
      for (size_t i = 1; i < u->src().size(); ++i) reduced.insert(u->src(i).get());
  }
  std::erase_if(ranges, [&](const UOpRef& r) { return reduced.contains(r.get()); });
  return ranges;
}

UOpRef StoreOnce(const Match& m) {
  const UOpRef& gate = m["gate"];
  if (gate->is_const()) return nullptr;
  for (const UOpRef& r : LoopsOf(m["store"])) {
    std::optional<Pin> pin = PinOf(gate, r);
    if (!pin) continue;
    UOpRef index = m["target"]->replace_src(
        {m["buf"], Substitute(m["i"], pin->at), logical_and(pin->valid, Substitute(gate, pin->at))});
    return m["store"]->replace_src({index, Substitute(m["v"], pin->at)});
  }
  return nullptr;
}

}  // namespace

const PatternMatcher& OneSlotStoreRules() {
  static const PatternMatcher rules({
      {Pat::Op(Ops::kStore, {Pat::Op(Ops::kIndex, {Pat::Var("buf"), Pat::Var("i"), Pat::Var("gate")}, "target"),
                             Pat::Var("v")},
               "store"),
       StoreOnce},
  });
  return rules;
}

}  // namespace tg::compiler
