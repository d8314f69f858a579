// UOp: the immutable, hash-consed graph node {op, dtype, src, arg} with derived shape and integer range.
// Built by the front end as the lazy tensor graph and rewritten by every compiler stage (docs/architecture.md).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/error.h"
#include "ir/multi_arg.h"
#include "ir/ops.h"

namespace tg {

using Shape = std::vector<int64_t>;
struct ReduceArg {  // op in {kAdd, kMul, kMax}
  Ops op;
  std::vector<int64_t> axes;
};
struct BufferArg {  // a realized storage node
  int64_t id;        // unique per buffer (hash/equality use id, device and size)
  std::string device;  // canonical device name, e.g. "CPU"
  int64_t size;        // elements
  std::shared_ptr<void> storage;  // opaque owner of the runtime buffer; NOT part of hash/equality
};
using Arg = std::variant<std::monostate, int64_t, double, bool, std::string, std::vector<int64_t>, ReduceArg,
                         BufferArg, MultiArg, AllreduceArg>;

// Structural equality and hash of args as hash-consing sees them: doubles by bit pattern (so NaN consts
// intern and 0.0 != -0.0), BufferArg by id, device and size (never by storage).
bool ArgEqual(const Arg& a, const Arg& b);
size_t ArgHash(const Arg& a);
std::string ArgString(const Arg& a);
std::string ShapeString(const Shape& s);  // "(2, 3)"

class UOp;
using UOpRef = std::shared_ptr<const UOp>;
// Per axis, the int32 expression (of variables) of the part of the axis that is present, or null for an
// axis that is whole (docs/variables.md).
using SymbolicLengths = std::vector<UOpRef>;

// Immutable and hash-consed: structurally equal nodes are the same object, so pointer equality is structural
// equality. Nodes are freed when the last UOpRef goes (iteratively, so deep graphs do not overflow the stack).
//
// Conventions for kernel-level nodes (the range analysis reads them):
//   RANGE:      src = {end}, arg = int64 axis id; the variable runs over [0, end-1]      (UOp::Range)
//   SPECIAL:    src = {extent}, arg = string name ("gidx0"); runs over [0, extent-1]     (UOp::Special)
//   DEFINE_VAR: arg = string name, src = {CONST min, CONST max}                          (UOp::Variable)
//               (an arg of vector<int64_t>{min, max} is also read as bounds)
//   BIND:       src = {DEFINE_VAR, CONST value}; ranges over the variable's bounds        (UOp::Bind)
class UOp : public std::enable_shared_from_this<UOp> {
 public:
  // Interns {op, dtype, src, arg}; throws tg::Error when the shape rules (ir/uop_shape.cc) are violated.
  static UOpRef Make(Ops op, DType dtype, std::vector<UOpRef> src = {}, Arg arg = {});
  // Make for a node that is new by construction (a BUFFER with an id never used before): it is built
  // first and entered in one visit of the table, where Make looks it up first. Same result as Make.
  static UOpRef MakeNew(Ops op, DType dtype, std::vector<UOpRef> src = {}, Arg arg = {});
  Ops op() const { return op_; }
  DType dtype() const { return dtype_; }
  const std::vector<UOpRef>& src() const { return src_; }
  const UOpRef& src(size_t i) const { return src_.at(i); }
  const Arg& arg() const { return arg_; }
  template <class T>
  const T& arg_as() const {
    if (const T* value = std::get_if<T>(&arg_)) return *value;
    throw Error("UOp::arg_as: " + std::string(OpName(op_)) + " has arg " + ArgString(arg_) +
                " of another type");
  }
  size_t hash() const { return hash_; }
  const Shape& shape() const { return shape_; }  // {} for scalars
  int64_t numel() const;

  // constants
  static UOpRef Const(DType dtype, ConstValue v);  // value converted with CastConst
  UOpRef const_like(ConstValue v) const;           // CONST with this node's dtype (scalar shape)
  bool is_const() const { return op_ == Ops::kConst; }
  ConstValue const_value() const;  // only for kConst; throws otherwise

  // building; dtype rules: comparisons -> bool, WHERE -> src1's, others -> src0's
  UOpRef alu(Ops op, std::initializer_list<UOpRef> more = {}) const;  // this is src0
  UOpRef cast(DType) const;
  UOpRef bitcast(DType) const;
  UOpRef reshape(Shape) const;
  UOpRef permute(std::vector<int64_t>) const;
  UOpRef expand(Shape) const;
  UOpRef pad(std::vector<std::pair<int64_t, int64_t>>) const;     // (before, after) per axis
  UOpRef shrink(std::vector<std::pair<int64_t, int64_t>>) const;  // (start, stop) per axis
  UOpRef var_shrink(int64_t axis, const UOpRef& length) const;     // VAR_SHRINK: [0, length) of |axis|
  // A PAD's or SHRINK's arg read back as the pairs pad() / shrink() took.
  std::vector<std::pair<int64_t, int64_t>> arg_pairs() const;
  UOpRef flip(std::vector<bool> axes_to_flip) const;
  UOpRef reduce(Ops op, std::vector<int64_t> axes) const;  // keepdim; negative axes count from the end
  UOpRef where(const UOpRef& a, const UOpRef& b) const;   // this is the condition

  // Range of integer/bool kernel expressions, computed once in Make; dtype limits where unknown.
  int64_t vmin() const { return vmin_; }
  int64_t vmax() const { return vmax_; }
  // Whether a MULTI is this node or below it: a graph without one skips the multi-device pass.
  bool has_multi() const { return has_multi_; }
  // Whether a BIND is this node or below it: a graph without one has no variable values to strip.
  bool has_bind() const { return has_bind_; }
  // The symbolic lengths of the axes (a VAR_SHRINK at or below this node, followed through the ops on
  // the way); null when every axis is whole, as for almost every node.
  const SymbolicLengths* lengths() const { return lengths_.get(); }
  const UOpRef& length(size_t axis) const;  // lengths()[axis], or null

  std::vector<UOpRef> toposort() const;  // srcs before users, this node last; iterative
  std::string str() const;               // multi-line dump: one line per node with op, dtype, arg, src ids

  // Builders of the kernel-level nodes, and helpers passes share.
  static UOpRef Range(const UOpRef& end, int64_t axis_id);
  static UOpRef Range(int64_t end, int64_t axis_id, DType dtype = dtypes::index);
  static UOpRef Special(std::string name, int64_t extent, DType dtype = dtypes::index);
  static UOpRef Variable(std::string name, int64_t min, int64_t max, DType dtype = dtypes::index);
  static UOpRef Bind(const UOpRef& variable, int64_t value);  // BIND(variable, CONST value)
  static UOpRef Sink(std::vector<UOpRef> src);
  UOpRef replace_src(std::vector<UOpRef> src) const;  // same op, dtype and arg
  bool is_const_value(ConstValue v) const;  // a CONST equal to |v| numerically (0 == 0.0 == false)
  int64_t const_int() const { return ConstToInt(const_value()); }
  static size_t LiveCount();  // nodes in the intern table: for tests and leak checks

  ~UOp() = default;
  UOp(const UOp&) = delete;
  UOp& operator=(const UOp&) = delete;

 private:
  friend struct UOpFactory;
  UOp(Ops op, DType dtype, std::vector<UOpRef> src, Arg arg);

  Ops op_;
  DType dtype_;
  std::vector<UOpRef> src_;
  Arg arg_;
  size_t hash_ = 0;
  Shape shape_;
  int64_t vmin_ = 0;
  int64_t vmax_ = 0;
  bool has_multi_ = false;
  bool has_bind_ = false;
  std::shared_ptr<const SymbolicLengths> lengths_;
};

// Expression building. Plain numbers become CONSTs of the other side's dtype.
UOpRef operator+(const UOpRef& a, const UOpRef& b);
UOpRef operator-(const UOpRef& a, const UOpRef& b);  // a + b*(-1) for ints, a + NEG(b) for floats
UOpRef operator*(const UOpRef& a, const UOpRef& b);
UOpRef operator/(const UOpRef& a, const UOpRef& b);  // kIdiv for ints, kFdiv for floats
UOpRef operator%(const UOpRef& a, const UOpRef& b);
UOpRef operator-(const UOpRef& a);                   // NEG
UOpRef lt(const UOpRef& a, const UOpRef& b);
UOpRef ne(const UOpRef& a, const UOpRef& b);
UOpRef eq(const UOpRef& a, const UOpRef& b);
UOpRef maximum(const UOpRef& a, const UOpRef& b);
UOpRef logical_and(const UOpRef& a, const UOpRef& b);  // kAnd on bool
UOpRef logical_or(const UOpRef& a, const UOpRef& b);   // kOr on bool (addition)
UOpRef logical_not(const UOpRef& a);                   // a != true (addition)

// A number as a CONST shaped like |like|'s dtype; the template keeps `x + 1` unambiguous.
template <class T>
concept Number = std::integral<T> || std::floating_point<T>;
template <Number T>
UOpRef NumberLike(const UOpRef& like, T v) {
  if constexpr (std::same_as<T, bool>) return like->const_like(v);
  else if constexpr (std::integral<T>) return like->const_like(static_cast<int64_t>(v));
  else return like->const_like(static_cast<double>(v));
}
#define TG_UOP_NUMBER_OPERATOR(SIGN)                                                                  \
  template <Number T>                                                                                 \
  UOpRef operator SIGN(const UOpRef& a, T b) { return a SIGN NumberLike(a, b); }                      \
  template <Number T>                                                                                 \
  UOpRef operator SIGN(T a, const UOpRef& b) { return NumberLike(b, a) SIGN b; }
TG_UOP_NUMBER_OPERATOR(+)
TG_UOP_NUMBER_OPERATOR(-)
TG_UOP_NUMBER_OPERATOR(*)
TG_UOP_NUMBER_OPERATOR(/)
TG_UOP_NUMBER_OPERATOR(%)
#undef TG_UOP_NUMBER_OPERATOR
#define TG_UOP_NUMBER_FUNCTION(NAME)                                                                  \
  template <Number T>                                                                                 \
  UOpRef NAME(const UOpRef& a, T b) { return NAME(a, NumberLike(a, b)); }                             \
  template <Number T>                                                                                 \
  UOpRef NAME(T a, const UOpRef& b) { return NAME(NumberLike(b, a), b); }
TG_UOP_NUMBER_FUNCTION(lt)
TG_UOP_NUMBER_FUNCTION(ne)
TG_UOP_NUMBER_FUNCTION(eq)
TG_UOP_NUMBER_FUNCTION(maximum)
#undef TG_UOP_NUMBER_FUNCTION

}  // namespace tg
