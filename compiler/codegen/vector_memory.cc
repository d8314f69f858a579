#include "compiler/codegen/vector_memory.h"

#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <vector>

#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

// index = base + offset, the offset a constant (0 when there is none).
std::pair<UOpRef, int64_t> SplitOffset(const UOpRef& index) {
  if (index->op() == Ops::kAdd) {
    if (index->src(1)->op() == Ops::kConst) return {index->src(0), index->src(1)->const_int()};
    if (index->src(0)->op() == Ops::kConst) return {index->src(1), index->src(0)->const_int()};
  }
  if (index->op() == Ops::kConst) return {UOp::Const(index->dtype(), int64_t{0}), index->const_int()};
  return {index, 0};
}

// Accesses of one buffer behind one gate from one base, by their constant offset.
using AccessKey = std::tuple<const UOp*, const UOp*, const UOp*>;  // buffer, gate, base

// The first offsets of aligned runs of |width| consecutive offsets in |offsets|.
std::vector<int64_t> AlignedRuns(const std::map<int64_t, UOpRef>& offsets, const UOpRef& base, int64_t width) {
  std::vector<int64_t> starts;
  int64_t factor = KnownFactor(base);
  if (factor != 0 && factor % width != 0) return starts;
  for (const auto& [offset, access] : offsets) {
    if (offset % width != 0) continue;
    bool whole = true;
    for (int64_t lane = 1; lane < width && whole; ++lane) whole = offsets.contains(offset + lane);
    if (whole) starts.push_back(offset);
  }
  return starts;
}

UOpRef VectorIndex(const UOpRef& scalar_index, const UOpRef& base, int64_t offset, DType vector) {
  UOpRef at = offset == 0 ? base : base + offset;
  return UOp::Make(Ops::kIndex, vector, {scalar_index->src(0), at, scalar_index->src(2)});
}

// Loads behind no gate of buffers the kernel does not write: a vector load reads its lanes at once,
// which for a buffer also written could move a lane's read across a store.
UOpRef JoinLoads(const UOpRef& sink, int bytes) {
  std::set<const UOp*> written;
  for (const UOpRef& u : sink->toposort())
    if (u->op() == Ops::kStore) written.insert(u->src(0)->src(0).get());
  std::map<AccessKey, std::map<int64_t, UOpRef>> groups;
  std::map<AccessKey, UOpRef> bases;
  for (const UOpRef& u : sink->toposort()) {
    if (u->op() != Ops::kLoad || u->src().size() != 1 || VectorMemoryLanes(u->dtype(), bytes) == 0) continue;
    const UOpRef& index = u->src(0);
    if (index->src(0)->op() != Ops::kDefineGlobal || written.contains(index->src(0).get())) continue;
    if (!index->src(2)->is_const_value(true)) continue;
    auto [base, offset] = SplitOffset(index->src(1));
    AccessKey key{index->src(0).get(), index->src(2).get(), base.get()};
    groups[key][offset] = u;
    bases[key] = base;
  }
  NodeMap replace;
  for (const auto& [key, offsets] : groups) {
    DType scalar = offsets.begin()->second->dtype();
    int64_t width = VectorMemoryLanes(scalar, bytes);
    for (int64_t start : AlignedRuns(offsets, bases[key], width)) {
      DType vector = scalar.vec(static_cast<int>(width));
      const UOpRef& first = offsets.at(start);
      UOpRef wide = UOp::Make(Ops::kLoad, vector, {VectorIndex(first->src(0), bases[key], start, vector)});
      for (int64_t lane = 0; lane < width; ++lane)
        replace[offsets.at(start + lane).get()] = UOp::Make(Ops::kGep, scalar, {wide}, lane);
    }
  }
  return Substitute(sink, replace);
}

UOpRef JoinStores(const UOpRef& sink, int bytes) {
  std::map<AccessKey, std::map<int64_t, UOpRef>> groups;
  std::map<AccessKey, UOpRef> bases;
  for (const UOpRef& s : sink->src()) {
    if (s->op() != Ops::kStore || VectorMemoryLanes(s->src(1)->dtype(), bytes) == 0) continue;
    const UOpRef& index = s->src(0);
    if (index->src(0)->op() != Ops::kDefineGlobal) continue;
    auto [base, offset] = SplitOffset(index->src(1));
    AccessKey key{index->src(0).get(), index->src(2).get(), base.get()};
    groups[key][offset] = s;
    bases[key] = base;
  }
  std::map<const UOp*, UOpRef> joined;  // the first store of a run -> the vector store; the others -> null
  for (const auto& [key, offsets] : groups) {
    DType scalar = offsets.begin()->second->src(1)->dtype();
    int64_t width = VectorMemoryLanes(scalar, bytes);
    for (int64_t start : AlignedRuns(offsets, bases[key], width)) {
      DType vector = scalar.vec(static_cast<int>(width));
      std::vector<UOpRef> values;
      for (int64_t lane = 0; lane < width; ++lane) {
        values.push_back(offsets.at(start + lane)->src(1));
        joined[offsets.at(start + lane).get()] = nullptr;
      }
      const UOpRef& first = offsets.at(start);
      joined[first.get()] = UOp::Make(Ops::kStore, dtypes::void_,
                                      {VectorIndex(first->src(0), bases[key], start, vector),
                                       UOp::Make(Ops::kVectorize, vector, std::move(values))});
    }
  }
  if (joined.empty()) return sink;
  std::vector<UOpRef> out;
  for (const UOpRef& s : sink->src()) {
    auto it = joined.find(s.get());
    if (it == joined.end()) out.push_back(s);
    else if (it->second) out.push_back(it->second);
  }
  return sink->replace_src(std::move(out));
}

}  // namespace

int64_t VectorMemoryLanes(DType dtype, int bytes) {
  bool lanes = dtype == dtypes::float32 || dtype == dtypes::int32 || dtype == dtypes::uint32 || dtype == dtypes::float16;
  return lanes ? bytes / dtype.itemsize() : 0;
}

int64_t KnownFactor(const UOpRef& index) {
  switch (index->op()) {
    case Ops::kConst: return std::abs(index->const_int());
    case Ops::kAdd: return std::gcd(KnownFactor(index->src(0)), KnownFactor(index->src(1)));
    case Ops::kMul: {
      int64_t a = KnownFactor(index->src(0)), b = KnownFactor(index->src(1));
      return a == 0 || b == 0 ? 0 : a * b;
    }
    default: return 1;
  }
}

UOpRef JoinVectorMemory(const UOpRef& sink, int bytes) { return JoinStores(JoinLoads(sink, bytes), bytes); }

}  // namespace tg::compiler
