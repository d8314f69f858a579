// Shape rules: computed once per node in UOp::Make, so a bad graph fails where it is built, not in codegen.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/uop_internal.h"

namespace tg::internal {
namespace {

[[noreturn]] void Fail(Ops op, const Shape& in, const std::string& why) {
  throw Error(absl::StrCat(std::string(OpName(op)), " on shape ", ShapeString(in), ": ", why));
}

const std::vector<int64_t>& VectorArg(Ops op, const Shape& in, const Arg& arg) {
  if (const auto* v = std::get_if<std::vector<int64_t>>(&arg)) return *v;
  Fail(op, in, "arg must be a list of integers, got " + ArgString(arg));
}

int64_t Product(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape Reshape(const Shape& in, const std::vector<int64_t>& to) {
  if (std::any_of(to.begin(), to.end(), [](int64_t d) { return d < 0; })) {
    Fail(Ops::kReshape, in, "negative dimension in target " + ShapeString(to));
  }
  if (Product(to) != Product(in)) {
    Fail(Ops::kReshape, in, absl::StrCat("cannot reshape to ", ShapeString(to), ": element counts differ (",
                                         Product(in), " vs ", Product(to), ")"));
  }
  return to;
}

Shape Permute(const Shape& in, const std::vector<int64_t>& perm) {
  std::vector<bool> seen(in.size(), false);
  if (perm.size() != in.size()) Fail(Ops::kPermute, in, "permutation " + ShapeString(perm) + " has wrong length");
  Shape out;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(in.size()) || seen[axis]) {
      Fail(Ops::kPermute, in, "invalid permutation " + ShapeString(perm));
    }
    seen[axis] = true;
    out.push_back(in[axis]);
  }
  return out;
}

Shape Expand(const Shape& in, const std::vector<int64_t>& to) {
  if (to.size() != in.size()) Fail(Ops::kExpand, in, "target " + ShapeString(to) + " has a different rank");
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != to[i] && in[i] != 1) {
      Fail(Ops::kExpand, in, absl::StrCat("cannot expand to ", ShapeString(to), ": axis ", i, " is ", in[i],
                                          ", only size-1 axes expand"));
    }
  }
  return to;
}

Shape PadOrShrink(Ops op, const Shape& in, const std::vector<int64_t>& flat) {
  if (flat.size() != 2 * in.size()) {
    Fail(op, in, "arg " + ShapeString(flat) + " needs two numbers per axis");
  }
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t first = flat[2 * i], second = flat[2 * i + 1];
    if (op == Ops::kPad) {
      if (first < 0 || second < 0) Fail(op, in, "negative padding " + ShapeString(flat));
      out[i] = in[i] + first + second;
    } else {
      if (first < 0 || first > second || second > in[i]) {
        Fail(op, in, absl::StrCat("axis ", i, " range [", first, ", ", second, ") is outside [0, ", in[i], "]"));
      }
      out[i] = second - first;
    }
  }
  return out;
}

Shape Flip(const Shape& in, const std::vector<int64_t>& flags) {
  if (flags.size() != in.size()) Fail(Ops::kFlip, in, "needs one flag per axis, got " + ShapeString(flags));
  return in;
}

Shape Reduce(const Shape& in, const Arg& arg) {
  const auto* r = std::get_if<ReduceArg>(&arg);
  if (r == nullptr) Fail(Ops::kReduce, in, "arg must be a ReduceArg, got " + ArgString(arg));
  if (r->op != Ops::kAdd && r->op != Ops::kMul && r->op != Ops::kMax) {
    Fail(Ops::kReduce, in, absl::StrCat("reduce op must be ADD, MUL or MAX, got ", std::string(OpName(r->op))));
  }
  Shape out = in;
  for (int64_t axis : r->axes) {
    if (axis < 0 || axis >= static_cast<int64_t>(in.size())) {
      Fail(Ops::kReduce, in, absl::StrCat("axis ", axis, " is out of range"));
    }
    out[axis] = 1;
  }
  return out;
}

Shape Iota(const Arg& arg) {
  const auto* n = std::get_if<int64_t>(&arg);
  if (n == nullptr || *n < 0) Fail(Ops::kIota, {}, "arg must be a non-negative length, got " + ArgString(arg));
  return Shape{*n};
}

// Kernel-level math mixes scalars freely with one common non-scalar shape.
Shape Elementwise(Ops op, const std::vector<UOpRef>& src) {
  const Shape* common = nullptr;
  for (const UOpRef& s : src) {
    if (s->shape().empty()) continue;
    if (common == nullptr) {
      common = &s->shape();
    } else if (*common != s->shape()) {
      std::vector<std::string> shapes;
      for (const UOpRef& t : src) shapes.push_back(ShapeString(t->shape()));
      throw Error(absl::StrCat(std::string(OpName(op)), ": source shapes differ: ", absl::StrJoin(shapes, " vs "),
                               " (broadcast them to one shape first)"));
    }
  }
  return common == nullptr ? Shape{} : *common;
}

// MULTI: the logical tensor its shards make up (ir/multi_arg.h); ALLREDUCE: one of its equal-shaped sources.
Shape Multi(Ops op, const std::vector<UOpRef>& src, const Arg& arg) {
  if (src.empty()) throw Error(absl::StrCat(std::string(OpName(op)), " needs a source per device"));
  const auto* multi = std::get_if<MultiArg>(&arg);
  if (op == Ops::kMulti && multi == nullptr)
    throw Error("MULTI: arg must be a MultiArg (ir/multi_arg.h), got " + ArgString(arg));
  if (op == Ops::kAllreduce && !std::holds_alternative<AllreduceArg>(arg))
    throw Error("ALLREDUCE: arg must be an AllreduceArg (ir/multi_arg.h), got " + ArgString(arg));
  int64_t axis = multi != nullptr ? multi->axis : -1;
  Shape out = src[0]->shape();
  if (axis >= static_cast<int64_t>(out.size()) || axis < -1)
    Fail(op, out, absl::StrCat("shard axis ", axis, " is out of range"));
  if (axis >= 0) out[axis] = 0;
  for (const UOpRef& s : src) {
    Shape want = out, have = s->shape();
    if (axis >= 0 && have.size() == want.size()) {
      out[axis] += have[axis];
      have[axis] = want[axis] = 0;
    }
    if (have != want)
      throw Error(absl::StrCat(std::string(OpName(op)), ": shard shapes differ outside the shard axis: ",
                               ShapeString(s->shape()), " vs ", ShapeString(src[0]->shape())));
  }
  return out;
}

size_t Arity(Ops op) { return IsUnary(op) ? 1 : IsBinary(op) ? 2 : 3; }

}  // namespace

Shape DeriveShape(Ops op, DType, const std::vector<UOpRef>& src, const Arg& arg) {
  if (IsAlu(op)) {
    if (src.size() != Arity(op)) {
      throw Error(absl::StrCat(std::string(OpName(op)), " needs ", Arity(op), " sources, got ", src.size()));
    }
    return Elementwise(op, src);
  }
  bool needs_src = IsMovement(op) || op == Ops::kReduce || op == Ops::kContiguous || op == Ops::kDetach ||
                   op == Ops::kCopy || op == Ops::kVarShrink;
  if (needs_src && src.empty()) throw Error(absl::StrCat(std::string(OpName(op)), " needs a source"));
  const Shape in = src.empty() ? Shape{} : src[0]->shape();
  switch (op) {
    case Ops::kBuffer:
      if (const auto* b = std::get_if<BufferArg>(&arg)) return Shape{b->size};
      throw Error("BUFFER: arg must be a BufferArg, got " + ArgString(arg));
    case Ops::kReshape: return Reshape(in, VectorArg(op, in, arg));
    case Ops::kPermute: return Permute(in, VectorArg(op, in, arg));
    case Ops::kExpand: return Expand(in, VectorArg(op, in, arg));
    case Ops::kPad: case Ops::kShrink: return PadOrShrink(op, in, VectorArg(op, in, arg));
    case Ops::kFlip: return Flip(in, VectorArg(op, in, arg));
    case Ops::kReduce: return Reduce(in, arg);
    case Ops::kIota: return Iota(arg);
    case Ops::kMulti: case Ops::kAllreduce: return Multi(op, src, arg);
    case Ops::kContiguous: case Ops::kDetach: case Ops::kCopy: case Ops::kAssign: case Ops::kVarShrink: return in;
    default: return {};
  }
}

}  // namespace tg::internal
