// Tensor elementwise ops: unary math, binary ops with broadcasting and dtype promotion, where.
#include <numbers>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

// Math that is only defined on floats runs in the default float for int and bool inputs.
Tensor AsFloat(const Tensor& t) { return t.dtype().is_float() ? t : t.cast(dtypes::default_float); }

void CheckSameDevice(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() != b.device())
    throw Error(std::string(op) + ": operands are on different devices (" + a.device() + " and " + b.device() +
                "); move one with .to(\"" + a.device() + "\")");
}

// Both operands broadcast to a common shape and promoted to a common dtype.
std::pair<Tensor, Tensor> Align(const Tensor& a, const Tensor& b, const char* op) {
  CheckSameDevice(a, b, op);
  // The common case (x + 1 fills the scalar to x's shape) agrees already: no shape to build.
  if (a.dtype() == b.dtype() && a.shape() == b.shape()) return {a, b};
  Shape shape = BroadcastShapes(a.shape(), b.shape(), op);
  DType dtype = PromoteTypes(a.dtype(), b.dtype());
  return {a.cast(dtype).expand(shape), b.cast(dtype).expand(shape)};
}

}  // namespace

Tensor Tensor::unary(Ops op) const { return like(uop()->alu(op)); }

Tensor Tensor::binary(Ops op, const Tensor& other, const char* name) const {
  auto [a, b] = Align(*this, other, name);
  return like(a.uop()->alu(op, {b.uop()}));
}

Tensor Tensor::neg() const { return dtype().is_bool() ? logical_not() : unary(Ops::kNeg); }
Tensor Tensor::exp2() const { return AsFloat(*this).unary(Ops::kExp2); }
Tensor Tensor::log2() const { return AsFloat(*this).unary(Ops::kLog2); }
Tensor Tensor::sqrt() const { return AsFloat(*this).unary(Ops::kSqrt); }
Tensor Tensor::sin() const { return AsFloat(*this).unary(Ops::kSin); }
Tensor Tensor::reciprocal() const { return AsFloat(*this).unary(Ops::kReciprocal); }
// e^x = 2^(x/ln2), in at least float32 so half inputs keep their precision (as tinygrad)
Tensor Tensor::exp() const {
  Tensor x = AsFloat(*this);
  return (x.cast(PromoteTypes(x.dtype(), dtypes::float32)) * (1.0 / std::numbers::ln2)).exp2().cast(x.dtype());
}
Tensor Tensor::log() const { return AsFloat(*this).log2() * std::numbers::ln2; }           // ln x = log2(x)*ln2
Tensor Tensor::relu() const { return (*this > 0).where(*this, 0); }
Tensor Tensor::logical_not() const { return cast(dtypes::bool_).ne(Tensor::full(shape(), true, dtypes::bool_, device())); }

Tensor Tensor::cast(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  return like(uop()->cast(dtype));
}

Tensor Tensor::add(const Tensor& other) const { return binary(Ops::kAdd, other, "add"); }
Tensor Tensor::mul(const Tensor& other) const { return binary(Ops::kMul, other, "mul"); }
Tensor Tensor::sub(const Tensor& other) const {
  auto [a, b] = Align(*this, other, "sub");
  return a.add(b.neg());
}
Tensor Tensor::div(const Tensor& other) const {
  auto [a, b] = Align(*this, other, "div");
  return AsFloat(a).binary(Ops::kFdiv, AsFloat(b), "div");
}
Tensor Tensor::maximum(const Tensor& other) const { return binary(Ops::kMax, other, "maximum"); }
Tensor Tensor::minimum(const Tensor& other) const { return neg().maximum(other.neg()).neg(); }

Tensor Tensor::lt(const Tensor& other) const { return binary(Ops::kCmpLt, other, "lt"); }
Tensor Tensor::gt(const Tensor& other) const { return other.lt(*this); }
Tensor Tensor::le(const Tensor& other) const { return gt(other).logical_not(); }
Tensor Tensor::ge(const Tensor& other) const { return lt(other).logical_not(); }
Tensor Tensor::eq(const Tensor& other) const { return binary(Ops::kCmpEq, other, "eq"); }
Tensor Tensor::ne(const Tensor& other) const { return binary(Ops::kCmpNe, other, "ne"); }

Tensor Tensor::where(const Tensor& x, const Tensor& y) const {
  CheckSameDevice(*this, x, "where");
  CheckSameDevice(x, y, "where");
  Shape shape = BroadcastShapes(BroadcastShapes(this->shape(), x.shape(), "where"), y.shape(), "where");
  DType dtype = PromoteTypes(x.dtype(), y.dtype());
  Tensor cond = cast(dtypes::bool_).expand(shape);
  return like(cond.uop()->where(x.cast(dtype).expand(shape).uop(), y.cast(dtype).expand(shape).uop()));
}
Tensor Tensor::where(Scalar x, const Tensor& y) const { return where(y.scalar_like(x), y); }
Tensor Tensor::where(const Tensor& x, Scalar y) const { return where(x, x.scalar_like(y)); }
Tensor Tensor::where(Scalar x, Scalar y) const {
  return where(Tensor::full(shape(), x, std::nullopt, device()), Tensor::full(shape(), y, std::nullopt, device()));
}

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return a.lt(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return a.gt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return a.le(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return a.ge(b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return a.ne(b); }
Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator%(const Tensor& a, const Tensor& b) { return a.mod(b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return a.bitwise_and(b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return a.bitwise_or(b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return a.bitwise_xor(b); }
Tensor operator<<(const Tensor& a, const Tensor& b) { return a.lshift(b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return a.rshift(b); }
Tensor operator~(const Tensor& a) { return a.bitwise_not(); }

// A scalar takes the tensor's dtype when it fits (weak typing), so the pair promotes to it.
#define TG_TENSOR_SCALAR_OPERATOR(SIGN, METHOD)                                                     \
  Tensor operator SIGN(const Tensor& a, Scalar b) { return a.METHOD(a.scalar_like(b)); }            \
  Tensor operator SIGN(Scalar a, const Tensor& b) { return b.scalar_like(a).METHOD(b); }
TG_TENSOR_SCALAR_OPERATOR(+, add)
TG_TENSOR_SCALAR_OPERATOR(-, sub)
TG_TENSOR_SCALAR_OPERATOR(*, mul)
TG_TENSOR_SCALAR_OPERATOR(/, div)
TG_TENSOR_SCALAR_OPERATOR(<, lt)
TG_TENSOR_SCALAR_OPERATOR(>, gt)
TG_TENSOR_SCALAR_OPERATOR(<=, le)
TG_TENSOR_SCALAR_OPERATOR(>=, ge)
TG_TENSOR_SCALAR_OPERATOR(==, eq)
TG_TENSOR_SCALAR_OPERATOR(!=, ne)
TG_TENSOR_SCALAR_OPERATOR(%, mod)
TG_TENSOR_SCALAR_OPERATOR(&, bitwise_and)
TG_TENSOR_SCALAR_OPERATOR(|, bitwise_or)
TG_TENSOR_SCALAR_OPERATOR(^, bitwise_xor)
TG_TENSOR_SCALAR_OPERATOR(<<, lshift)
TG_TENSOR_SCALAR_OPERATOR(>>, rshift)
#undef TG_TENSOR_SCALAR_OPERATOR

}  // namespace tg
