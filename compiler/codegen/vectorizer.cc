#include "compiler/codegen/vectorizer.h"

#include "absl/container/flat_hash_map.h"
#include "compiler/codegen/expander.h"
#include "ir/linear.h"
#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

bool Is32Bit(DType d) { return d.base().itemsize() == 4; }

class Vectorizer {
 public:
  Vectorizer(const UOpRef& range, const Target& target)
      : range_(range), n_(range->src(0)->const_int()), target_(target) {}

  UOpRef Run(const UOpRef& sink) {
    std::vector<UOpRef> stores;
    for (const UOpRef& store : sink->src()) VectorStore(store, stores);
    return Simplify(UOp::Sink(std::move(stores)));
  }

 private:
  bool Depends(const UOpRef& u) {
    if (auto it = depends_.find(u.get()); it != depends_.end()) return it->second;
    bool d = u == range_;
    for (const UOpRef& s : u->src()) d = d || Depends(s);
    return depends_[u.get()] = d;
  }

  UOpRef Lane(const UOpRef& u, int64_t c) {
    return Simplify(Substitute(u, {{range_.get(), UOp::Const(range_->dtype(), c)}}));
  }

  // Whether lane c of |index| is lane 0 plus c, for every lane (then one vector access reads
  // all lanes from lane 0's address).
  bool Contiguous(const UOpRef& index) {
    std::optional<LinearTerm> linear = LinearIn(index, range_);
    return linear && linear->coeff == 1;
  }

  static bool IsVector(const UOpRef& u) { return u->dtype().count() > 1; }
  UOpRef Gep(const UOpRef& v, int64_t c) {
    return IsVector(v) ? UOp::Make(Ops::kGep, v->dtype().base(), {v}, c) : v;
  }
  UOpRef LaneWise(const UOpRef& u, const std::function<UOpRef(int64_t)>& lane) {
    std::vector<UOpRef> lanes;
    for (int64_t c = 0; c < n_; ++c) lanes.push_back(lane(c));
    DType dtype = lanes[0]->dtype().vec(static_cast<int>(n_));  // before |lanes| is moved from
    return UOp::Make(Ops::kVectorize, dtype, std::move(lanes));
  }

  UOpRef Vec(const UOpRef& u) {
    if (!Depends(u)) return u;
    if (auto it = vec_.find(u.get()); it != vec_.end()) return it->second;
    UOpRef out;
    if (u->op() == Ops::kLoad) out = VecLoad(u);
    else if (u->op() == Ops::kReduce) out = VecReduce(u);
    else if (IsAlu(u->op())) out = VecAlu(u);
    else out = LaneWise(u, [&](int64_t c) { return Lane(u, c); });
    return vec_[u.get()] = out;
  }

  // |gate| as one scalar when every lane's gate simplifies to the same condition (a cat of
  // vector-aligned blocks: lane l of block b tests b*16 + l < 16, which is b < 1 for every l);
  // nullptr when the lanes differ.
  UOpRef SameInEveryLane(const UOpRef& gate) {
    if (!Depends(gate)) return gate;
    UOpRef first = Lane(gate, 0);
    for (int64_t c = n_ - 1; c > 0; --c)
      if (Lane(gate, c) != first) return nullptr;
    return first;
  }

  UOpRef VecLoad(const UOpRef& load) {
    const UOpRef& index = load->src(0);
    const UOpRef &buf = index->src(0), &lin = index->src(1), &gate = index->src(2);
    // bool vectors are 32-bit masks in registers but 1 byte per element in memory: lane by lane
    bool contiguous = Contiguous(lin) && !load->dtype().is_bool();
    UOpRef scalar_gate = contiguous ? SameInEveryLane(gate) : nullptr;
    DType vt = load->dtype().vec(static_cast<int>(n_));
    if (scalar_gate) return UOp::Make(Ops::kLoad, vt, {UOp::Make(Ops::kIndex, vt, {buf, Lane(lin, 0), scalar_gate})});
    // Lanes gated apart (a padded conv's border columns): one masked load, the gate a lane mask;
    // the renderer reads the whole vector when every lane is on and only the lanes on otherwise.
    if (contiguous && Is32Bit(load->dtype()))
      return UOp::Make(Ops::kLoad, vt, {UOp::Make(Ops::kIndex, vt, {buf, Lane(lin, 0), Vec(gate)})});
    return LaneWise(load, [&](int64_t c) { return Lane(load, c); });
  }

  UOpRef VecAlu(const UOpRef& u) {
    std::vector<UOpRef> src;
    bool any_vector = false;
    for (const UOpRef& s : u->src()) {
      src.push_back(Vec(s));
      any_vector = any_vector || IsVector(src.back());
    }
    if (!any_vector) return u->replace_src(std::move(src));
    DType operand = u->op() == Ops::kWhere ? u->src(1)->dtype() : u->src(0)->dtype();
    if (target_.VectorAlu(u->op(), operand, u->dtype())) {
      // A scalar bool joins masks as all-ones lanes (C would broadcast true as 1, not -1).
      if (operand.is_bool())
        for (UOpRef& s : src)
          if (!IsVector(s)) s = UOp::Make(Ops::kVectorize, s->dtype().vec(static_cast<int>(n_)), std::vector<UOpRef>(n_, s));
      return UOp::Make(u->op(), u->dtype().vec(static_cast<int>(n_)), std::move(src), u->arg());
    }
    return LaneWise(u, [&](int64_t c) {
      std::vector<UOpRef> lane;
      for (const UOpRef& s : src) lane.push_back(Gep(s, c));
      return UOp::Make(u->op(), u->dtype(), std::move(lane), u->arg());
    });
  }

  UOpRef VecReduce(const UOpRef& reduce) {
    UOpRef value = Vec(reduce->src(0));
    std::vector<UOpRef> loops;
    bool over_range = false;
    for (size_t i = 1; i < reduce->src().size(); ++i) {
      if (reduce->src(i) == range_) over_range = true;
      else loops.push_back(reduce->src(i));
    }
    Ops op = reduce->arg_as<ReduceArg>().op;
    UOpRef partial = loops.empty() ? value : AccumulatedOverLoops(reduce, value, loops);
    if (!over_range) return partial;
    // The vector lanes are partial results over |range|: fold them. A value the lanes share (a
    // constant summed) is one partial per lane all the same.
    UOpRef folded = Gep(partial, 0);
    for (int64_t c = 1; c < n_; ++c) folded = CombineReduced(op, folded, Gep(partial, c));
    return folded;
  }

  // |value| reduced over |loops| by |reduce|'s op: one vector accumulator where the dialect combines
  // such vectors whole, else one scalar accumulator per lane (a MAX of float64 lanes has no vector
  // select in C: its comparison mask is 64 bits a lane, not the 32 of the mask type).
  UOpRef AccumulatedOverLoops(const UOpRef& reduce, const UOpRef& value, const std::vector<UOpRef>& loops) {
    auto reduced = [&](const UOpRef& v) {
      std::vector<UOpRef> src{v};
      src.insert(src.end(), loops.begin(), loops.end());
      return UOp::Make(Ops::kReduce, v->dtype(), std::move(src), reduce->arg());
    };
    DType dt = value->dtype();
    Ops op = reduce->arg_as<ReduceArg>().op;
    if (!IsVector(value) || target_.VectorAlu(op, dt.base(), dt.base())) return reduced(value);
    return LaneWise(reduce, [&](int64_t c) { return reduced(Gep(value, c)); });
  }

  void VectorStore(const UOpRef& store, std::vector<UOpRef>& out) {
    if (!Depends(store)) return out.push_back(store);
    const UOpRef& index = store->src(0);
    const UOpRef &buf = index->src(0), &lin = index->src(1), &gate = index->src(2);
    UOpRef value = Vec(store->src(1));
    UOpRef scalar_gate = Contiguous(lin) && IsVector(value) && !value->dtype().is_bool() ? SameInEveryLane(gate) : nullptr;
    if (scalar_gate) {
      DType vt = value->dtype();
      out.push_back(UOp::Make(Ops::kStore, dtypes::void_,
                              {UOp::Make(Ops::kIndex, vt, {buf, Lane(lin, 0), scalar_gate}), value}));
      return;
    }
    // Lanes gated apart (an output axis padded to the vector width): one masked store, as loads are;
    // lane by lane it would be a gated scalar store per lane, which LLVM then spends long compiles on.
    if (Contiguous(lin) && IsVector(value) && !value->dtype().is_bool() && Is32Bit(value->dtype())) {
      DType vt = value->dtype();
      out.push_back(UOp::Make(Ops::kStore, dtypes::void_, {UOp::Make(Ops::kIndex, vt, {buf, Lane(lin, 0), Vec(gate)}), value}));
      return;
    }
    for (int64_t c = 0; c < n_; ++c)
      out.push_back(UOp::Make(Ops::kStore, dtypes::void_, {Lane(index, c), Gep(value, c)}));
  }

  UOpRef range_;
  int64_t n_;
  const Target& target_;
  absl::flat_hash_map<const UOp*, bool> depends_;
  absl::flat_hash_map<const UOp*, UOpRef> vec_;
};

}  // namespace

UOpRef VectorizeAxis(const UOpRef& sink, const UOpRef& range, const Target& target) {
  return Vectorizer(range, target).Run(sink);
}

}  // namespace tg::compiler
