// Tensor activations, each the composition tinygrad uses, so gradients come from the primitive
// rules (and match tinygrad's at the kinks, e.g. relu'(0) = 0).
#include <cmath>
#include <numbers>

#include "frontend/tensor.h"

namespace tg {
namespace {

Tensor AsFloat(const Tensor& t) { return t.dtype().is_float() ? t : t.cast(dtypes::default_float); }

}  // namespace

// 1 / (1 + 2^(-x/ln2))
Tensor Tensor::sigmoid() const { return (1.0 + (AsFloat(*this) * (-1.0 / std::numbers::ln2)).exp2()).reciprocal(); }
Tensor Tensor::logsigmoid() const { return -(-AsFloat(*this)).softplus(); }
Tensor Tensor::hardsigmoid(double alpha, double beta) const {
  Tensor y = alpha * AsFloat(*this) + beta;
  return y.relu() - (y - 1.0).relu();
}
Tensor Tensor::elu(double alpha) const { return relu() - alpha * (1.0 - exp()).relu(); }
Tensor Tensor::celu(double alpha) const {
  Tensor x = AsFloat(*this);
  return x.maximum(0.0) + (alpha * ((x / alpha).exp() - 1.0)).minimum(0.0);
}
Tensor Tensor::selu(double alpha, double gamma) const {
  Tensor x = AsFloat(*this);
  return gamma * x.ge(0.0).where(x, alpha * (x.exp() - 1.0));
}
Tensor Tensor::swish() const { return *this * sigmoid(); }
Tensor Tensor::silu() const { return swish(); }
Tensor Tensor::relu6() const { return relu() - (*this - 6).relu(); }
Tensor Tensor::hardswish() const { return *this * (*this + 3).relu6() * (1.0 / 6.0); }
Tensor Tensor::tanh() const { return 2.0 * (2.0 * AsFloat(*this)).sigmoid() - 1.0; }
Tensor Tensor::sinh() const { return (exp() - neg().exp()) / 2.0; }
Tensor Tensor::cosh() const { return (exp() + neg().exp()) / 2.0; }
Tensor Tensor::atanh() const {
  Tensor x = AsFloat(*this);
  return ((1.0 + x) / (1.0 - x)).log() / 2.0;
}
Tensor Tensor::asinh() const {
  Tensor x = AsFloat(*this);
  return (x + (x.square() + 1.0).sqrt()).log();
}
Tensor Tensor::acosh() const {
  Tensor x = AsFloat(*this);
  return (x + (x.square() - 1.0).sqrt()).log();
}
Tensor Tensor::hardtanh(double min_val, double max_val) const { return clamp(min_val, max_val); }

Tensor Tensor::erf() const {
  // Abramowitz-Stegun 7.1.26
  Tensor x = AsFloat(*this);
  Tensor t = 1.0 / (1.0 + 0.3275911 * x.abs());
  Tensor poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592);
  return x.sign() * (1.0 - t * poly * (-x.square()).exp());
}

Tensor Tensor::gelu(std::string_view approximate) const {
  Tensor x = AsFloat(*this);
  if (approximate == "tanh")
    return 0.5 * x * (1.0 + (std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x.pow(3))).tanh());
  if (approximate == "none") return x * 0.5 * (1.0 + (x / std::numbers::sqrt2).erf());
  throw Error("gelu: approximate \"" + std::string(approximate) + "\" is not supported; use \"tanh\" or \"none\"");
}
Tensor Tensor::quick_gelu() const { return *this * (AsFloat(*this) * 1.702).sigmoid(); }
Tensor Tensor::leaky_relu(double neg_slope) const { return lt(0).where(neg_slope * *this, *this); }
Tensor Tensor::mish() const { return *this * softplus().tanh(); }
Tensor Tensor::softplus(double beta) const { return (1.0 / beta) * (AsFloat(*this) * beta).logaddexp(0.0); }
Tensor Tensor::softsign() const { return *this / (1 + abs()); }

}  // namespace tg
