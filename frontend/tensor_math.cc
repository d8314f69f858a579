// Tensor unary math (trig, rounding, predicates, clamp, sign) and bitcast, composed from the
// primitive unary UOps (EXP2 LOG2 SIN SQRT RECIPROCAL TRUNC) the way tinygrad composes them.
#include <cmath>
#include <limits>
#include <numbers>

#include "frontend/tensor.h"

namespace tg {
namespace {

Tensor AsFloat(const Tensor& t) { return t.dtype().is_float() ? t : t.cast(dtypes::default_float); }

// Horner evaluation of coefficients given highest power first (tinygrad's polyN).
Tensor PolyN(const Tensor& x, std::initializer_list<double> coefficients) {
  std::optional<Tensor> acc;
  for (double c : coefficients) acc = acc ? *acc * x + c : x.full_like(c);
  return *acc;
}

}  // namespace

Tensor Tensor::log10() const { return AsFloat(*this).log2() * std::log10(2.0); }
Tensor Tensor::rsqrt() const { return sqrt().reciprocal(); }

// cos x = sin(pi/2 - x), in at least float32 so half inputs keep their precision.
Tensor Tensor::cos() const {
  Tensor x = AsFloat(*this);
  DType wide = PromoteTypes(x.dtype(), dtypes::float32);
  return (std::numbers::pi / 2 - x.cast(wide)).sin().cast(x.dtype());
}
Tensor Tensor::tan() const { return sin() / cos(); }

Tensor Tensor::asin() const {
  // Abramowitz-Stegun 4.4.46: |error| <= 2e-8 on [0, 1]
  Tensor x = AsFloat(*this), a = x.abs();
  Tensor poly = PolyN(a, {-0.0012624911, 0.0066700901, -0.0170881256, 0.0308918810, -0.0501743046, 0.0889789874,
                          -0.2145988016, 1.5707963050});
  return x.sign() * (std::numbers::pi / 2 - (1.0 - a).sqrt() * poly);
}
Tensor Tensor::acos() const { return std::numbers::pi / 2 - asin(); }
Tensor Tensor::atan() const {
  Tensor x = AsFloat(*this);
  return (x / (1.0 + x * x).sqrt()).asin();
}

Tensor Tensor::trunc() const { return dtype().is_float() ? unary(Ops::kTrunc) : *this; }
Tensor Tensor::ceil() const {
  if (!dtype().is_float()) return *this;
  Tensor b = trunc();
  return gt(b).where(b + 1, b);
}
Tensor Tensor::floor() const {
  if (!dtype().is_float()) return *this;
  Tensor b = trunc();
  return lt(b).where(b - 1, b);
}
// Half to even: x.5 goes up when trunc(x) is odd for positives (down for negatives), else away.
Tensor Tensor::round() const {
  if (!dtype().is_float()) return *this;
  Tensor half_trunc = trunc() / 2.0;
  Tensor even = half_trunc.trunc().eq(half_trunc);
  return gt(0).eq(even).where((*this - 0.5).ceil(), (*this + 0.5).floor());
}

Tensor Tensor::isinf(bool detect_positive, bool detect_negative) const {
  Tensor out = full_like(false, dtypes::bool_);
  if (!dtype().is_float()) return out;
  if (detect_positive) out = out.bitwise_or(eq(std::numeric_limits<double>::infinity()));
  if (detect_negative) out = out.bitwise_or(eq(-std::numeric_limits<double>::infinity()));
  return out;
}
Tensor Tensor::isnan() const { return ne(*this); }
Tensor Tensor::isfinite() const { return isinf().bitwise_or(isnan()).logical_not(); }

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const { return *this + (end - *this) * weight; }
Tensor Tensor::lerp(const Tensor& end, Scalar weight) const { return *this + (end - *this) * weight; }
Tensor Tensor::square() const { return *this * *this; }

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  if (!min && !max) throw Error("clamp: give at least one of min and max (both were absent)");
  if (min && max && min->value > max->value)
    throw Error("clamp: min " + std::to_string(min->value) + " is greater than max " + std::to_string(max->value));
  Tensor ret = min ? lt(*min).where(scalar_like(*min), *this) : *this;
  return max ? ret.gt(*max).where(ret.scalar_like(*max), ret) : ret;
}

Tensor Tensor::sign() const {
  if (dtype().is_bool()) return *this;
  return ne(0).where(lt(0).where(full_like(-1), full_like(1)), full_like(0));
}
Tensor Tensor::abs() const {
  if (dtype().is_bool() || dtype().is_unsigned()) return *this;
  return *this * sign();  // its gradient is sign(x): 0 at 0, as PyTorch
}

Tensor Tensor::bitcast(DType dtype) const {
  int from = this->dtype().itemsize(), to = dtype.itemsize();
  if (from == to) return dtype == this->dtype() ? *this : like(uop()->bitcast(dtype));
  // Different widths: view the last axis as bytes-per-element groups (tinygrad rescales it).
  if (ndim() == 0 || (shape().back() * from) % to != 0)
    throw Error("bitcast: cannot bitcast " + ShapeString(shape()) + " " + this->dtype().name() + " to " + dtype.name() +
                "; the last axis times " + std::to_string(from) + " bytes must be a multiple of " +
                std::to_string(to));
  throw Error("bitcast: " + this->dtype().name() + " to " + dtype.name() +
              " changes the element size; only same-size bitcasts are supported so far");
}

}  // namespace tg
