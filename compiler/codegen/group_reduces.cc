#include "compiler/codegen/group_reduces.h"

#include <algorithm>

#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

bool Contains(const std::vector<UOpRef>& list, const UOpRef& u) {
  return std::find(list.begin(), list.end(), u) != list.end();
}

// The row-major index of a work item over |ids| (ranges, later launch ids).
UOpRef SlotOf(const std::vector<UOpRef>& ids) {
  UOpRef slot = UOp::Const(dtypes::index, int64_t{0});
  for (const UOpRef& id : ids) slot = slot * id->src(0)->const_int() + id;
  return slot;
}

int64_t FreshRangeId(const UOpRef& sink) {
  int64_t id = 0;
  for (const UOpRef& u : sink->toposort())
    if (u->op() == Ops::kRange) id = std::max(id, u->arg_as<int64_t>() + 1);
  return id;
}

class GroupReduceSharer {
 public:
  GroupReduceSharer(const UOpRef& sink, const std::vector<UOpRef>& locals, const std::vector<UOpRef>& groups)
      : groups_(groups), next_range_(FreshRangeId(sink)) {
    slot_ids_ = locals;
    slot_ids_.insert(slot_ids_.end(), groups.begin(), groups.end());
    threads_ = 1;
    for (const UOpRef& id : slot_ids_) threads_ *= id->src(0)->const_int();
  }

  UOpRef Run(const UOpRef& sink) {
    NodeMap done;
    for (const UOpRef& u : sink->toposort()) {
      std::vector<UOpRef> src;
      for (const UOpRef& s : u->src()) src.push_back(done.at(s.get()));
      bool grouped = u->op() == Ops::kReduce &&
                     std::any_of(src.begin() + 1, src.end(), [&](const UOpRef& r) { return Contains(groups_, r); });
      done[u.get()] = grouped ? Share(u, std::move(src)) : u->replace_src(std::move(src));
    }
    std::vector<UOpRef> outputs;
    for (const UOpRef& s : sink->src()) outputs.push_back(s->op() == Ops::kStore ? ByFirstItem(done.at(s.get())) : done.at(s.get()));
    return Simplify(sink->replace_src(std::move(outputs)));
  }

 private:
  // REDUCE(x, ranges + group ranges) -> each work item's partial over |ranges| into its slot, a
  // barrier, then the reduce of the group's slots, read along loops in place of the group ids.
  UOpRef Share(const UOpRef& reduce, std::vector<UOpRef> src) {
    std::vector<UOpRef> own{src[0]}, grouped;
    for (size_t i = 1; i < src.size(); ++i) (Contains(groups_, src[i]) ? grouped : own).push_back(src[i]);
    UOpRef partial = own.size() == 1 ? src[0] : UOp::Make(Ops::kReduce, reduce->dtype(), std::move(own), reduce->arg());
    UOpRef local = UOp::Make(Ops::kDefineLocal, reduce->dtype(), {UOp::Const(dtypes::index, threads_)}, next_local_++);
    UOpRef slot = SlotOf(slot_ids_);
    UOpRef yes = UOp::Const(dtypes::bool_, true);
    UOpRef written = UOp::Make(Ops::kStore, dtypes::void_,
                               {UOp::Make(Ops::kIndex, reduce->dtype(), {local, slot, yes}), partial});
    UOpRef barrier = UOp::Make(Ops::kBarrier, dtypes::void_, {written});
    NodeMap along_loops;
    std::vector<UOpRef> combine;
    for (const UOpRef& g : grouped) {
      combine.push_back(UOp::Range(g->src(0)->const_int(), next_range_++, g->dtype()));
      along_loops[g.get()] = combine.back();
    }
    UOpRef read = UOp::Make(Ops::kLoad, reduce->dtype(),
                            {UOp::Make(Ops::kIndex, reduce->dtype(), {local, Substitute(slot, along_loops), yes}), barrier});
    combine.insert(combine.begin(), read);
    return UOp::Make(Ops::kReduce, reduce->dtype(), std::move(combine), reduce->arg());
  }

  // STORE(buf[i] if c, v) -> STORE(buf[i] if c && every group id is 0, v).
  UOpRef ByFirstItem(const UOpRef& store) const {
    const UOpRef& index = store->src(0);
    UOpRef gate = index->src(2);
    for (const UOpRef& g : groups_) gate = logical_and(gate, eq(g, UOp::Const(g->dtype(), int64_t{0})));
    std::vector<UOpRef> index_src = index->src();
    index_src[2] = gate;
    std::vector<UOpRef> store_src = store->src();
    store_src[0] = index->replace_src(std::move(index_src));
    return store->replace_src(std::move(store_src));
  }

  std::vector<UOpRef> groups_, slot_ids_;
  int64_t threads_ = 1;
  int64_t next_range_ = 0, next_local_ = 0;
};

}  // namespace

UOpRef ShareGroupReduces(const UOpRef& sink, const std::vector<UOpRef>& locals, const std::vector<UOpRef>& groups) {
  if (groups.empty()) return sink;
  return GroupReduceSharer(sink, locals, groups).Run(sink);
}

}  // namespace tg::compiler
