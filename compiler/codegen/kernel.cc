#include "compiler/codegen/kernel.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
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
UOpRef SplitRange(const UOpRef& ast, const UOpRef& range, const UOpRef& outer, const UOpRef& inner) {
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
        src.push_back(outer);
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

Kernel::Kernel(const UOpRef& ast, int global_dims) : ast_(ast) {
  absl::flat_hash_set<const UOp*> reduce_ranges;
  std::vector<UOpRef> ranges;
  for (const UOpRef& u : ast->toposort()) {
    if (u->op() == Ops::kRange) ranges.push_back(u);
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

void Kernel::Apply(const Opt& opt) {
  if (opt.axis < 0 || opt.axis >= static_cast<int>(axes_.size()))
    throw Error(opt.str() + ": the kernel has " + std::to_string(axes_.size()) + " axes");
  const Axis& axis = axes_[opt.axis];
  bool is_reduce = axis.type == AxisType::kReduce;
  bool is_output = axis.type == AxisType::kGlobal || axis.type == AxisType::kLoop;
  if (opt.op == OptOp::kUnroll && !is_reduce)
    throw Error(opt.str() + ": UNROLL needs a reduce axis; axis " + std::to_string(opt.axis) + " is " +
                AxisTypeName(axis.type));
  if (opt.op != OptOp::kUnroll && !is_output)
    throw Error(opt.str() + ": needs an output axis; axis " + std::to_string(opt.axis) + " is " +
                AxisTypeName(axis.type));
  if (opt.op == OptOp::kThread && axis.type != AxisType::kGlobal)
    throw Error(opt.str() + ": THREAD splits the global axis; axis " + std::to_string(opt.axis) + " is " +
                AxisTypeName(axis.type));
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
