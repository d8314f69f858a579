// Tensor binary ops beyond the arithmetic core: rounding division, mod/fmod, pow, copysign,
// logaddexp, bitwise ops and shifts, scalar operands, masked_fill, and their C++ operators.
// Everything is composed from primitive UOps (IDIV/MOD are C's truncating ops), so autograd sees
// only ops it has rules for.
#include <cmath>
#include <numbers>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

void CheckIntegral(const Tensor& t, const char* op, bool allow_bool) {
  if (t.dtype().is_int() || (allow_bool && t.dtype().is_bool())) return;
  throw Error(std::string(op) + ": needs " + (allow_bool ? "int or bool" : "int") + " tensors; got " +
              t.dtype().name() + " (cast with .cast(tg::dtypes::int32) first)");
}

void CheckRoundingMode(std::string_view mode) {
  if (mode != "" && mode != "trunc" && mode != "floor")
    throw Error("div: rounding_mode \"" + std::string(mode) + "\" is not supported; use \"\", \"trunc\" or \"floor\"");
}

// Exact integer power by repeated squaring; |e| >= 0.
Tensor IntPow(const Tensor& x, int64_t e) {
  if (e == 0) return x.ones_like();
  if (e == 1) return x;
  Tensor half = IntPow(x, e / 2).square();
  return e % 2 == 0 ? half : half * x;
}

}  // namespace

Tensor Tensor::add(Scalar other) const { return add(scalar_like(other)); }
Tensor Tensor::sub(Scalar other) const { return sub(scalar_like(other)); }
Tensor Tensor::mul(Scalar other) const { return mul(scalar_like(other)); }
Tensor Tensor::div(Scalar other) const { return div(scalar_like(other)); }
Tensor Tensor::maximum(Scalar other) const { return maximum(scalar_like(other)); }
Tensor Tensor::minimum(Scalar other) const { return minimum(scalar_like(other)); }
Tensor Tensor::lt(Scalar other) const { return lt(scalar_like(other)); }
Tensor Tensor::gt(Scalar other) const { return gt(scalar_like(other)); }
Tensor Tensor::le(Scalar other) const { return le(scalar_like(other)); }
Tensor Tensor::ge(Scalar other) const { return ge(scalar_like(other)); }
Tensor Tensor::eq(Scalar other) const { return eq(scalar_like(other)); }
Tensor Tensor::ne(Scalar other) const { return ne(scalar_like(other)); }

Tensor Tensor::div(const Tensor& other, std::string_view rounding_mode) const {
  CheckRoundingMode(rounding_mode);
  if (rounding_mode.empty()) return div(other);
  Tensor a = *this, b = other;
  if (PromoteTypes(a.dtype(), b.dtype()).is_int()) {
    Tensor q = binary(Ops::kIdiv, other, "div");  // C division truncates toward zero
    if (rounding_mode == "trunc") return q;
    // floor: one less where the division was inexact and the signs differ
    Tensor r = binary(Ops::kMod, other, "div");
    Tensor fix = r.ne(0).bitwise_and(r.lt(0).ne(other.lt(0)));
    return fix.where(q - 1, q);
  }
  Tensor d = div(other);
  return rounding_mode == "trunc" ? d.trunc() : d.floor();
}
Tensor Tensor::div(Scalar other, std::string_view rounding_mode) const {
  return div(scalar_like(other), rounding_mode);
}

Tensor Tensor::mod(const Tensor& other) const {
  if (PromoteTypes(dtype(), other.dtype()).is_int()) {
    Tensor r = binary(Ops::kMod, other, "mod");  // C remainder; Python's follows the divisor's sign
    Tensor b = other.cast(r.dtype()).expand(r.shape());
    return (r.ne(0).bitwise_and(r.lt(0).bitwise_xor(b.lt(0)))).where(r + b, r);
  }
  return *this - div(other, "floor") * other;
}
Tensor Tensor::mod(Scalar other) const { return mod(scalar_like(other)); }

Tensor Tensor::fmod(const Tensor& other) const {
  if (PromoteTypes(dtype(), other.dtype()).is_int()) return binary(Ops::kMod, other, "fmod");
  return *this - div(other, "trunc") * other;
}
Tensor Tensor::fmod(Scalar other) const { return fmod(scalar_like(other)); }

// b^e = exp(e log|b|), then the sign of a negative base with an odd exponent, NaN for a negative
// base with a fractional one, and 0^0 = 1.
Tensor Tensor::pow(const Tensor& exponent) const {
  DType out = PromoteTypes(dtype(), exponent.dtype());
  if (!out.is_float()) return cast(dtypes::default_float).pow(exponent).round().cast(out);
  Tensor base = cast(out), e = exponent.cast(out);
  Tensor ret = base.abs().log().mul(e).exp();
  Tensor negative = base.lt(0).detach().where(1.0, 0.0).cast(out);
  Tensor sign = 1.0 + negative * ((e * std::numbers::pi).cos() - 1.0);
  Tensor nan = (negative * e.ne(e.trunc())).detach().where(std::nan(""), 1.0).cast(out);
  return (base.eq(0.0).bitwise_and(e.eq(0.0))).detach().where(1.0, ret * sign * nan);
}

Tensor Tensor::pow(Scalar exponent) const {
  double e = exponent.value;
  bool integral = std::trunc(e) == e && std::abs(e) < 1e9;
  if (!dtype().is_float() && exponent.kind != Scalar::Kind::kFloat && e < 0)
    throw Error("pow: an " + dtype().name() + " base needs a non-negative integer exponent; got " +
                std::to_string(static_cast<int64_t>(e)) + " (cast the base to float)");
  if (integral && !dtype().is_float() && exponent.kind != Scalar::Kind::kFloat)
    return IntPow(*this, static_cast<int64_t>(e));
  DType fdt = dtype().is_float() ? dtype() : dtypes::default_float;
  if (integral && e < 0) return cast(fdt).reciprocal().pow(-e);
  if (integral) return IntPow(cast(fdt), static_cast<int64_t>(e));
  if (std::trunc(e - 0.5) + 0.5 == e && e > 0) return pow(e - 0.5) * sqrt();  // half-integer powers
  return pow(scalar_like(exponent));
}

Tensor Tensor::pow(Scalar base, const Tensor& exponent) {
  // a positive constant base needs no sign fix-ups: base^e = exp(e ln base)
  if (base.value > 0) return (exponent.cast(PromoteTypes(exponent.dtype(), dtypes::default_float)) *
                              std::log(base.value)).exp();
  return exponent.scalar_like(base).pow(exponent);
}

Tensor Tensor::copysign(const Tensor& other) const {
  Tensor b = other.cast(PromoteTypes(dtype(), other.dtype()));
  Tensor mag = cast(b.dtype()).abs();
  // 1/b < 0 catches -0.0
  Tensor negative = b.dtype().is_float() ? b.lt(0).bitwise_or(b.reciprocal().lt(0)) : b.lt(0);
  return negative.where(-mag, mag);
}
Tensor Tensor::copysign(Scalar other) const { return copysign(scalar_like(other)); }

Tensor Tensor::logaddexp(const Tensor& other) const {
  Tensor m = maximum(other);
  return ((*this - m).exp() + (other - m).exp()).log() + m;
}
Tensor Tensor::logaddexp(Scalar other) const { return logaddexp(scalar_like(other)); }

Tensor Tensor::bitwise_and(const Tensor& other) const {
  CheckIntegral(*this, "bitwise_and", true), CheckIntegral(other, "bitwise_and", true);
  return binary(Ops::kAnd, other, "bitwise_and");
}
Tensor Tensor::bitwise_or(const Tensor& other) const {
  CheckIntegral(*this, "bitwise_or", true), CheckIntegral(other, "bitwise_or", true);
  return binary(Ops::kOr, other, "bitwise_or");
}
Tensor Tensor::bitwise_xor(const Tensor& other) const {
  CheckIntegral(*this, "bitwise_xor", true), CheckIntegral(other, "bitwise_xor", true);
  return binary(Ops::kXor, other, "bitwise_xor");
}
Tensor Tensor::bitwise_and(Scalar other) const { return bitwise_and(scalar_like(other)); }
Tensor Tensor::bitwise_or(Scalar other) const { return bitwise_or(scalar_like(other)); }
Tensor Tensor::bitwise_xor(Scalar other) const { return bitwise_xor(scalar_like(other)); }

Tensor Tensor::bitwise_not() const {
  CheckIntegral(*this, "bitwise_not", true);
  if (dtype().is_bool()) return logical_not();
  // all ones: -1 for signed ints; the type's max (same bits) for unsigned ones
  return like(uop()->alu(Ops::kXor, {full_like(-1).uop()}));
}

Tensor Tensor::lshift(const Tensor& bits) const {
  CheckIntegral(*this, "lshift", false), CheckIntegral(bits, "lshift", false);
  return binary(Ops::kShl, bits, "lshift");
}
Tensor Tensor::rshift(const Tensor& bits) const {
  CheckIntegral(*this, "rshift", false), CheckIntegral(bits, "rshift", false);
  return binary(Ops::kShr, bits, "rshift");
}
Tensor Tensor::lshift(Scalar bits) const { return lshift(scalar_like(bits)); }
Tensor Tensor::rshift(Scalar bits) const { return rshift(scalar_like(bits)); }

Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return mask.where(value.cast(dtype()), *this);
}
Tensor Tensor::masked_fill(const Tensor& mask, Scalar value) const { return mask.where(scalar_like(value), *this); }

}  // namespace tg
