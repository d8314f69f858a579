#include "compiler/codegen/tensor_cores.h"

#include <algorithm>

#include "compiler/codegen/pinned_range.h"
#include "ir/error.h"
#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

// The coordinate |bits| give element |element| of lane |lane|: each lane bit read off the lane id.
UOpRef Coordinate(const CoordinateBits& bits, const UOpRef& lane, int element) {
  int64_t fixed = 0;
  UOpRef value = UOp::Const(lane->dtype(), int64_t{0});
  for (size_t i = 0; i < bits.size(); ++i) {
    int8_t bit = bits[i];
    if (bit >= kElement) fixed += static_cast<int64_t>((element >> (bit - kElement)) & 1) << i;
    else value = value + lane / (int64_t{1} << bit) % 2 * (int64_t{1} << i);
  }
  return value + fixed;
}

UOpRef Vector(DType scalar, std::vector<UOpRef> lanes) {
  DType dtype = scalar.vec(static_cast<int>(lanes.size()));
  return UOp::Make(Ops::kVectorize, dtype, std::move(lanes));
}

const UOp* TheReduceOver(const UOpRef& sink, const std::vector<UOpRef>& tile) {
  for (const UOpRef& u : sink->toposort())
    if (u->op() == Ops::kReduce)
      for (size_t i = 1; i < u->src().size(); ++i)
        if (std::find(tile.begin(), tile.end(), u->src(i)) != tile.end()) return u.get();
  throw Error("tensor cores: no reduce runs over the tile's k axis");
}

}  // namespace

std::optional<MatmulOperands> MatchTensorCoreReduce(const UOp& reduce, const TensorCore& tc) {
  if (reduce.op() != Ops::kReduce || reduce.arg_as<ReduceArg>().op != Ops::kAdd || reduce.dtype() != tc.accumulate)
    return std::nullopt;
  // The product may be rounded to the input type before the sum widens it (a half product; a
  // bfloat16 one, computed in float by dtype_decomp): the instruction's exact product is at least as close.
  UOpRef v = reduce.src(0);
  if (v->op() == Ops::kCast && v->src(0)->dtype() == tc.input) v = v->src(0);
  if (v->op() == Ops::kCast && v->src(0)->op() == Ops::kMul) v = v->src(0);
  if (v->op() != Ops::kMul) return std::nullopt;
  // An operand is of the input type, or of it widened to the product's type.
  auto operand = [&](const UOpRef& x) -> UOpRef {
    if (x->dtype() == tc.input) return x;
    if (x->op() == Ops::kCast && x->src(0)->dtype() == tc.input) return x->src(0);
    return nullptr;
  };
  UOpRef a = operand(v->src(0)), b = operand(v->src(1));
  if (!a || !b) return std::nullopt;
  return MatmulOperands{a, b};
}

TensorCoreLowering LowerTensorCore(const UOpRef& sink, const TensorCore& tc, const std::vector<UOpRef>& tile) {
  const UOp* reduce = TheReduceOver(sink, tile);
  std::optional<MatmulOperands> ab = MatchTensorCoreReduce(*reduce, tc);
  if (!ab) throw Error("tensor cores: the reduce is not a product of two " + tc.input.name() + " operands");
  UOpRef m, n, k;
  for (const UOpRef& r : tile) {
    bool in_a = Mentions(ab->a, r), in_b = Mentions(ab->b, r);
    if (in_a && in_b) k = r;
    else if (in_a) m = r;
    else if (in_b) n = r;
  }
  if (!m || !n || !k) throw Error("tensor cores: the tile's axes are not a matmul's m, n and k");
  int64_t id = 0;
  for (const UOpRef& u : sink->toposort())
    if (u->op() == Ops::kRange) id = std::max(id, u->arg_as<int64_t>() + 1);
  UOpRef lane = UOp::Range(tc.threads, id, m->dtype());

  std::vector<UOpRef> a, b, zeros;
  for (int j = 0; j < tc.a_elements(); ++j)
    a.push_back(Substitute(ab->a, {{m.get(), Coordinate(tc.a_row, lane, j)}, {k.get(), Coordinate(tc.a_k, lane, j)}}));
  for (int j = 0; j < tc.b_elements(); ++j)
    b.push_back(Substitute(ab->b, {{k.get(), Coordinate(tc.b_k, lane, j)}, {n.get(), Coordinate(tc.b_col, lane, j)}}));
  for (int j = 0; j < tc.c_elements(); ++j) zeros.push_back(UOp::Const(tc.accumulate, int64_t{0}));
  DType tile_dtype = tc.accumulate.vec(tc.c_elements());
  UOpRef product = UOp::Make(Ops::kWmma, tile_dtype,
                             {Vector(tc.input, std::move(a)), Vector(tc.input, std::move(b)), Vector(tc.accumulate, std::move(zeros))},
                             tc.name);
  std::vector<UOpRef> over{product};
  for (size_t i = 1; i < reduce->src().size(); ++i)
    if (reduce->src(i) != k) over.push_back(reduce->src(i));
  UOpRef tile_sum = over.size() == 1 ? product : UOp::Make(Ops::kReduce, tile_dtype, std::move(over), reduce->arg());

  std::vector<UOpRef> stores;
  for (const UOpRef& store : sink->src()) {
    if (store->op() != Ops::kStore) {
      stores.push_back(store);
      continue;
    }
    for (int e = 0; e < tc.c_elements(); ++e)
      stores.push_back(Substitute(store, {{reduce, UOp::Make(Ops::kGep, tc.accumulate, {tile_sum}, int64_t{e})},
                                          {m.get(), Coordinate(tc.c_row, lane, e)},
                                          {n.get(), Coordinate(tc.c_col, lane, e)}}));
  }
  return {Simplify(sink->replace_src(std::move(stores))), lane};
}

}  // namespace tg::compiler
