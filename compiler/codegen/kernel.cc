#include "compiler/codegen/kernel.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "compiler/codegen/block_loop_order.h"
#include "compiler/codegen/pinned_range.h"
#include "compiler/codegen/tensor_cores.h"
#include "ir/error.h"
#include "ir/linear.h"
#include "ir/substitute.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

int64_t RangeId(const UOpRef& r) { return r->arg_as<int64_t>(); }

std::vector<UOpRef> SortedRanges(const std::vector<UOpRef>& nodes) {
  std::vector<UOpRef> out = nodes;
  std::sort(out.begin(), out.end(), [](const UOpRef& a, const UOpRef& b) { return RangeId(a) < RangeId(b); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// |ast| with |range| replaced by |outer| * |inner extent| + |inner|; in a REDUCE's loop list the
// one range becomes the two.
// The value a reduce starts from: padded iterations contribute it and change nothing.
UOpRef ReduceIdentity(Ops op, DType dtype) {
  switch (op) {
    case Ops::kAdd: return UOp::Const(dtype, int64_t{0});
    case Ops::kMul: return UOp::Const(dtype, int64_t{1});
    default:
      return dtype.is_float() ? UOp::Const(dtype, -std::numeric_limits<double>::infinity())
                              : UOp::Const(dtype, DTypeMinInt(dtype));
  }
}

// |outer_reduces| false: the REDUCE keeps only |inner| (BLOCK's outer part loops outside it).
UOpRef SplitRange(const UOpRef& ast, const UOpRef& range, const UOpRef& outer, const UOpRef& inner,
                  bool outer_reduces = true) {
  int64_t amount = inner->src(0)->const_int();
  UOpRef joined = outer * amount + inner;
  NodeMap done;
  for (const UOpRef& u : ast->toposort()) {
    if (u == range) {
      done[u.get()] = joined;
      continue;
    }
    std::vector<UOpRef> src;
    for (size_t i = 0; i < u->src().size(); ++i) {
      const UOpRef& s = u->src(i);
      if (u->op() == Ops::kReduce && i > 0 && s == range) {
        if (outer_reduces) src.push_back(outer);
        src.push_back(inner);
      } else {
        src.push_back(done.at(s.get()));
      }
    }
    done[u.get()] = u->replace_src(std::move(src));
  }
  return Simplify(done.at(ast.get()));
}

}  // namespace

Kernel::Kernel(const UOpRef& ast, int global_dims, GroupLimits group_limits, std::vector<TensorCore> tensor_cores,
               std::string no_tensor_cores)
    : ast_(ast),
      group_limits_(std::move(group_limits)),
      tensor_cores_(std::move(tensor_cores)),
      no_tensor_cores_(std::move(no_tensor_cores)) {
  absl::flat_hash_set<const UOp*> reduce_ranges;
  std::vector<UOpRef> ranges;
  for (const UOpRef& u : ast->toposort()) {
    // A loop to a symbolic length is no axis: no opt can split or move a length it cannot read.
    if (u->op() == Ops::kRange && u->src(0)->is_const()) ranges.push_back(u);
    if (u->op() == Ops::kReduce)
      for (size_t i = 1; i < u->src().size(); ++i) reduce_ranges.insert(u->src(i).get());
  }
  int globals = 0;
  for (const UOpRef& r : SortedRanges(ranges)) {
    if (reduce_ranges.contains(r.get())) continue;
    axes_.push_back({r, globals < global_dims ? AxisType::kGlobal : AxisType::kLoop});
    ++globals;
  }
  for (const UOpRef& r : SortedRanges(ranges))
    if (reduce_ranges.contains(r.get())) axes_.push_back({r, AxisType::kReduce});
  Renumber();
}

std::vector<UOpRef> Kernel::RangesOf(AxisType type) const {
  std::vector<UOpRef> out;
  for (const Axis& a : axes_)
    if (a.type == type) out.push_back(a.range);
  return out;
}

const UOp* Kernel::ReduceOf(const UOpRef& range) const {
  for (const UOpRef& u : ast_->toposort())
    if (u->op() == Ops::kReduce)
      for (size_t s = 1; s < u->src().size(); ++s)
        if (u->src(s) == range) return u.get();
  return nullptr;
}

void Kernel::Apply(const Opt& opt) {
  if (opt.axis < 0 || opt.axis >= static_cast<int>(axes_.size()))
    throw Error(opt.str() + ": the kernel has " + std::to_string(axes_.size()) + " axes");
  const Axis& axis = axes_[opt.axis];
  bool is_reduce = axis.type == AxisType::kReduce;
  bool is_output = axis.type == AxisType::kGlobal || axis.type == AxisType::kLoop;
  std::string role = "axis " + std::to_string(opt.axis) + " is " + AxisTypeName(axis.type);
  // The tiles' lanes and fragments are fixed by the instruction: only more tiles per work group
  // (LOCAL) or per work item (UPCAST) of the output axes are left to choose.
  if (tensor_core_ >= 0 && opt.op != OptOp::kLocal && opt.op != OptOp::kUpcast)
    throw Error(opt.str() + ": after TC only LOCAL and UPCAST of output axes apply; " + AxesString());
  switch (opt.op) {
    case OptOp::kTc: return UseTensorCore(opt);
    case OptOp::kGroup: case OptOp::kGroupTop:
      if (!is_reduce) throw Error(opt.str() + ": GROUP splits a reduce axis; " + role);
      return Group(opt);
    case OptOp::kPadTo: return PadTo(opt);
    case OptOp::kSwap: return Swap(opt);
    case OptOp::kBlock: return Block(opt);
    default: break;
  }
  if (opt.op == OptOp::kUnroll && !is_reduce) throw Error(opt.str() + ": UNROLL needs a reduce axis; " + role);
  if (opt.op != OptOp::kUnroll && !is_output) throw Error(opt.str() + ": needs an output axis; " + role);
  if (opt.op == OptOp::kThread && axis.type != AxisType::kGlobal)
    throw Error(opt.str() + ": THREAD splits the global axis; " + role);
  if (opt.amount < 1 || axis.extent() % opt.amount != 0)
    throw Error(opt.str() + ": " + std::to_string(opt.amount) + " does not divide the axis extent " +
                std::to_string(axis.extent()));
  AxisType inner = opt.op == OptOp::kUpcast ? AxisType::kUpcast
                   : opt.op == OptOp::kUnroll ? AxisType::kUnroll
                   : opt.op == OptOp::kLocal  ? AxisType::kLocal
                                              : AxisType::kLoop;
  Split(opt.axis, opt.amount, inner);
  applied_.push_back(opt);
}

// PADTO (tinygrad's apply_opt): the loop runs to the next multiple of the amount; loads and stores
// at the added iterations are masked off, and a reduce over the axis sees its identity there.
void Kernel::PadTo(const Opt& opt) {
  const Axis& axis = axes_[opt.axis];
  std::string role = "axis " + std::to_string(opt.axis) + " is " + AxisTypeName(axis.type);
  if (axis.type != AxisType::kGlobal && axis.type != AxisType::kLoop && axis.type != AxisType::kReduce)
    throw Error(opt.str() + ": PADTO pads an output or reduce loop, not an expanded or local one; " + role);
  if (opt.amount < 2) throw Error(opt.str() + ": the multiple must be at least 2");
  int64_t n = axis.extent(), padded = (n + opt.amount - 1) / opt.amount * opt.amount;
  if (padded == n) throw Error(opt.str() + ": the extent " + std::to_string(n) + " is already a multiple");
  if (n * 4 <= padded) throw Error(opt.str() + ": padding " + std::to_string(n) + " to " + std::to_string(padded) +
                                   " more than quadruples the work");
  UOpRef old = axis.range, grown = UOp::Range(padded, 2000000, old->dtype());
  UOpRef valid = lt(grown, n);
  // Each INDEX that moves with the axis gets the mask in its gate, and each REDUCE over it reduces
  // where(valid, x, identity); then the range is swapped for the longer one.
  NodeMap done;
  for (const UOpRef& u : ast_->toposort()) {
    if (u == old) {
      done[u.get()] = grown;
      continue;
    }
    std::vector<UOpRef> src;
    for (const UOpRef& s : u->src()) src.push_back(done.at(s.get()));
    UOpRef out = u->replace_src(src);
    if (u->op() == Ops::kIndex && src[1] != u->src(1)) {
      out = UOp::Make(Ops::kIndex, u->dtype(), {src[0], src[1], logical_and(src[2], valid)}, u->arg());
    } else if (u->op() == Ops::kReduce && std::find(u->src().begin() + 1, u->src().end(), old) != u->src().end()) {
      Ops op = u->arg_as<ReduceArg>().op;
      src[0] = valid->where(src[0], ReduceIdentity(op, src[0]->dtype()));
      out = u->replace_src(std::move(src));
    }
    done[u.get()] = out;
  }
  ast_ = Simplify(done.at(ast_.get()));
  axes_[opt.axis].range = grown;
  Renumber();
  applied_.push_back(opt);
}

// SWAP: two output loops trade places in the loop nest, each position keeping its role.
void Kernel::Swap(const Opt& opt) {
  int other = static_cast<int>(opt.amount);
  auto output = [&](int i) {
    return i >= 0 && i < static_cast<int>(axes_.size()) &&
           (axes_[i].type == AxisType::kGlobal || axes_[i].type == AxisType::kLoop);
  };
  if (MovesBlockLoop(axes_, opt.axis, other)) {
    std::swap(axes_[opt.axis], axes_[other]);  // the block loop moves, keeping its role
    Renumber();
    applied_.push_back(opt);
    return;
  }
  if (other == opt.axis || !output(opt.axis) || !output(other))
    throw Error(opt.str() + ": SWAP exchanges two different output axes (GLOBAL or LOOP), or the BLOCK loop with "
                "a LOOP; the kernel's axes are " + AxesString());
  std::swap(axes_[opt.axis].range, axes_[other].range);
  Renumber();
  applied_.push_back(opt);
}

// BLOCK: the reduce runs in blocks of |amount|, the block loop outermost in each group (after the
// group ids), and the store adds each block's sum to what the earlier blocks stored there; the first
// block's load is gated off (a gated load reads 0). Summing in parts so is only right for a sum that
// is stored as it is, in the one store of the kernel, whose outputs no other work item writes.
void Kernel::Block(const Opt& opt) {
  const Axis& axis = axes_[opt.axis];
  if (axis.type != AxisType::kReduce)
    throw Error(opt.str() + ": BLOCK splits a reduce axis; axis " + std::to_string(opt.axis) + " is " +
                AxisTypeName(axis.type));
  int64_t n = axis.extent();
  if (opt.amount < 2 || opt.amount >= n || n % opt.amount != 0)
    throw Error(opt.str() + ": the block must divide the extent " + std::to_string(n) + " and be between 2 and it");
  // The SINK lists the store and the buffers.
  int store_at = -1, stores = 0;
  for (size_t i = 0; i < ast_->src().size(); ++i)
    if (ast_->src(i)->op() == Ops::kStore) store_at = static_cast<int>(i), ++stores;
  const UOpRef* value = stores == 1 ? &ast_->src(store_at)->src(1) : nullptr;
  bool stored_sum = value && (*value)->op() == Ops::kReduce && (*value)->arg_as<ReduceArg>().op == Ops::kAdd &&
                    std::find((*value)->src().begin() + 1, (*value)->src().end(), axis.range) != (*value)->src().end();
  if (!stored_sum)
    throw Error(opt.str() + ": BLOCK adds each block's sum into the output, so the kernel must have one store "
                "whose value is a sum over axis " + std::to_string(opt.axis) + " itself (not scaled, cast or fused "
                "into more math)");
  const UOpRef& output = ast_->src(store_at)->src(0)->src(0);
  for (const UOpRef& u : ast_->toposort())
    if (u->op() == Ops::kLoad && u->src(0)->src(0) == output)
      throw Error(opt.str() + ": the kernel reads its own output; BLOCK's partial sums would change what it reads");
  UOpRef outer = UOp::Range(n / opt.amount, 2000000, axis.range->dtype());
  UOpRef inner = UOp::Range(opt.amount, 2000001, axis.range->dtype());
  UOpRef split = SplitRange(ast_, axis.range, outer, inner, /*outer_reduces=*/false);
  std::vector<UOpRef> sink = split->src();
  const UOpRef& index = sink[store_at]->src(0);
  UOpRef earlier_index = index->replace_src({index->src(0), index->src(1), logical_and(index->src(2), lt(0, outer))});
  UOpRef earlier = UOp::Make(Ops::kLoad, sink[store_at]->src(1)->dtype(), {earlier_index});
  sink[store_at] = sink[store_at]->replace_src({index, sink[store_at]->src(1) + earlier});
  ast_ = Simplify(split->replace_src(std::move(sink)));
  axes_[opt.axis].range = inner;
  auto first_loop = std::find_if(axes_.begin(), axes_.end(), [](const Axis& a) { return a.type != AxisType::kGlobal; });
  axes_.insert(first_loop, {outer, AxisType::kBlock});
  Renumber();
  applied_.push_back(opt);
}

// GROUP / GROUPTOP (tinygrad's GROUP_REDUCE): |amount| work items of a group each reduce their share
// of the axis, then combine the partials through local memory (codegen/group_reduces). GROUP gives
// work item l the iterations l, l + amount, ... (neighbours read neighbours: coalesced); GROUPTOP
// gives it the l-th contiguous stretch. Every output axis must be a launch id: a loop around the
// reduce would rewrite the local array while slower work items still read it.
void Kernel::Group(const Opt& opt) {
  const Axis& axis = axes_[opt.axis];
  if (!group_limits_.refusal.empty())
    throw Error(opt.str() + ": a group reduce needs local memory shared by a group's work items and a barrier; " +
                group_limits_.refusal);
  int64_t n = axis.extent();
  if (opt.amount < 2 || n % opt.amount != 0)
    throw Error(opt.str() + ": the group must divide the extent " + std::to_string(n) + " and be at least 2");
  for (const Axis& a : axes_)
    if (a.type == AxisType::kLoop || a.type == AxisType::kBlock || a.type == AxisType::kGroupReduce)
      throw Error(opt.str() + ": a group reduce needs every output axis on the launch grid and one group axis; "
                  "the kernel's axes are " + AxesString());
  const UOp* reduce = ReduceOf(axis.range);
  absl::flat_hash_set<const UOp*> outer_reduce_ranges, closed_below;
  for (const UOpRef& u : ast_->toposort())
    if (u->op() == Ops::kReduce && u.get() != reduce)
      for (size_t i = 1; i < u->src().size(); ++i) outer_reduce_ranges.insert(u->src(i).get());
  for (const UOpRef& u : reduce->toposort())
    if (u->op() == Ops::kReduce)
      for (size_t i = 1; i < u->src().size(); ++i) closed_below.insert(u->src(i).get());
  for (const UOpRef& u : reduce->toposort())
    if (outer_reduce_ranges.contains(u.get()) && !closed_below.contains(u.get()))
      throw Error(opt.str() + ": the reduce over axis " + std::to_string(opt.axis) +
                  " runs inside another reduce's loop, where its local array would be rewritten each iteration");
  int64_t threads = opt.amount * GroupThreads();
  if (RangesOf(AxisType::kLocal).size() >= 3)
    throw Error(opt.str() + ": a group has three launch dimensions and LOCAL takes them all; " + AxesString());
  if (threads > group_limits_.max_threads)
    throw Error(opt.str() + ": a group of " + std::to_string(threads) + " work items; the device allows " +
                std::to_string(group_limits_.max_threads));
  uint64_t bytes = GroupReduceBytes(*reduce, threads);
  if (bytes > group_limits_.local_bytes)
    throw Error(opt.str() + ": the partials take " + std::to_string(bytes) + " bytes of local memory; the device has " +
                std::to_string(group_limits_.local_bytes));
  applied_.push_back(opt);
  if (n == opt.amount) return Split(opt.axis, opt.amount, AxisType::kGroupReduce);  // the whole axis
  UOpRef group = UOp::Range(opt.amount, 2000000, axis.range->dtype());
  UOpRef rest = UOp::Range(n / opt.amount, 2000001, axis.range->dtype());
  ast_ = opt.op == OptOp::kGroupTop ? SplitRange(ast_, axis.range, group, rest) : SplitRange(ast_, axis.range, rest, group);
  axes_[opt.axis].range = rest;
  axes_.push_back({group, AxisType::kGroupReduce});
  Renumber();
}

// TC: axis |opt.axis| is the reduce's k; m and n are the innermost output axes that only a or only
// b moves with. Each is split by the tile's size, the tile's part becoming a TC axis.
void Kernel::UseTensorCore(const Opt& opt) {
  if (tensor_cores_.empty())
    throw Error(opt.str() + ": TC needs a matrix instruction, and " + no_tensor_cores_ +
                "; tensor cores are used on " + TensorCoreSupportSummary());
  if (opt.amount < 0 || opt.amount >= static_cast<int64_t>(tensor_cores_.size()))
    throw Error(opt.str() + ": the target has tensor cores 0 to " + std::to_string(tensor_cores_.size() - 1));
  if (!applied_.empty()) throw Error(opt.str() + ": TC must be the first opt of a kernel");
  const TensorCore& tc = tensor_cores_[opt.amount];
  const Axis& k_axis = axes_[opt.axis];
  int reduces = 0;
  for (const UOpRef& u : ast_->toposort()) reduces += u->op() == Ops::kReduce;
  const UOp* reduce = k_axis.type == AxisType::kReduce ? ReduceOf(k_axis.range) : nullptr;
  std::optional<MatmulOperands> ab = reduce ? MatchTensorCoreReduce(*reduce, tc) : std::nullopt;
  if (!ab || reduces != 1)
    throw Error(opt.str() + ": " + tc.str() + " computes a kernel's one reduce, a sum in " + tc.accumulate.name() +
                " of products of two " + tc.input.name() + " operands, over a reduce axis; axis " +
                std::to_string(opt.axis) + " is " + AxisTypeName(k_axis.type) + " of " + AxesString());
  int m = -1, n = -1;
  for (int i = 0; i < static_cast<int>(axes_.size()); ++i) {
    const Axis& a = axes_[i];
    if (a.type != AxisType::kGlobal && a.type != AxisType::kLoop) continue;
    bool in_a = Mentions(ab->a, a.range), in_b = Mentions(ab->b, a.range);
    if (in_a && !in_b && a.extent() % tc.m == 0) m = i;
    if (in_b && !in_a && a.extent() % tc.n == 0) n = i;
  }
  if (m < 0 || n < 0 || k_axis.extent() % tc.k != 0 || !Mentions(ab->a, k_axis.range) || !Mentions(ab->b, k_axis.range))
    throw Error(opt.str() + ": " + tc.str() + " needs an output axis of a alone divisible by " + std::to_string(tc.m) +
                ", one of b alone divisible by " + std::to_string(tc.n) + " and the reduce axis of both divisible by " +
                std::to_string(tc.k) + "; the kernel's axes are " + AxesString());
  // Highest index first: splitting a whole axis moves it to the end, which shifts the ones after it.
  std::vector<std::pair<int, int64_t>> splits = {{m, tc.m}, {n, tc.n}, {opt.axis, tc.k}};
  std::sort(splits.begin(), splits.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (auto [axis, size] : splits) Split(axis, size, AxisType::kTensorCore);
  tensor_core_ = static_cast<int>(opt.amount);
  applied_.push_back(opt);
}

int64_t Kernel::GroupThreads() const {
  int64_t threads = tensor_core() ? tensor_core()->threads : 1;
  for (const Axis& a : axes_)
    if (a.type == AxisType::kLocal || a.type == AxisType::kGroupReduce) threads *= a.extent();
  return threads;
}

// One partial per work item; each UPCAST copy of the reduce has its own.
uint64_t Kernel::GroupReduceBytes(const UOp& reduce, int64_t threads) const {
  uint64_t bytes = reduce.dtype().itemsize();
  int64_t copies = 1;
  for (const Axis& a : axes_)
    if (a.type == AxisType::kUpcast) copies *= a.extent();
  return bytes * static_cast<uint64_t>(threads * copies);
}

std::string Kernel::AxesString() const {
  std::string out = "[";
  for (size_t i = 0; i < axes_.size(); ++i)
    out += (i ? ", " : "") + AxisTypeName(axes_[i].type) + ":" + std::to_string(axes_[i].extent());
  return out + "]";
}

void Kernel::Split(int axis, int64_t amount, AxisType inner_type) {
  Axis old = axes_[axis];
  if (old.extent() == amount) {  // the whole axis changes role; no size-1 outer loop is left
    axes_.erase(axes_.begin() + axis);
    axes_.push_back({old.range, inner_type});
    return Renumber();
  }
  int64_t next_id = 2000000;  // clear of every live id; Renumber() makes ids dense again
  UOpRef outer = UOp::Range(old.extent() / amount, next_id, old.range->dtype());
  UOpRef inner = UOp::Range(amount, next_id + 1, old.range->dtype());
  ast_ = SplitRange(ast_, old.range, outer, inner);
  axes_[axis].range = outer;
  axes_.push_back({inner, inner_type});
  Renumber();
}

void Kernel::Renumber() {
  // Two passes through temporary ids avoid clashes between old and new numbers.
  for (int pass = 0; pass < 2; ++pass) {
    NodeMap rename;
    for (size_t i = 0; i < axes_.size(); ++i) {
      int64_t id = pass == 0 ? 1000000 + static_cast<int64_t>(i) : static_cast<int64_t>(i);
      UOpRef fresh = UOp::Range(axes_[i].extent(), id, axes_[i].range->dtype());
      rename[axes_[i].range.get()] = fresh;
      axes_[i].range = fresh;
    }
    ast_ = Substitute(ast_, rename);
  }
}

std::optional<int64_t> Kernel::Stride(const UOpRef& index_expr, const UOpRef& range) {
  bool uses_range = false;
  for (const UOpRef& u : index_expr->toposort()) uses_range = uses_range || u == range;
  if (!uses_range) return 0;
  if (std::optional<LinearTerm> linear = LinearIn(index_expr, range)) return linear->coeff;
  UOpRef at0 = Substitute(index_expr, {{range.get(), UOp::Const(range->dtype(), int64_t{0})}});
  UOpRef at1 = Substitute(index_expr, {{range.get(), UOp::Const(range->dtype(), int64_t{1})}});
  UOpRef diff = Simplify(at1 - at0);
  if (diff->op() != Ops::kConst) return std::nullopt;
  return diff->const_int();
}

}  // namespace tg::compiler
