// NN functional ops: linear, layernorm, batchnorm, dropout (with the global training flag) and
// scaled dot-product attention, composed as tinygrad composes them.
#include <atomic>
#include <cmath>
#include <limits>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

std::atomic<bool>& TrainingFlag() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace

void Tensor::set_training(bool on) { TrainingFlag() = on; }
bool Tensor::training() { return TrainingFlag(); }

Tensor Tensor::linear(const Tensor& weight, const std::optional<Tensor>& bias) const {
  Tensor x = weight.ndim() == 1 ? mul(weight) : matmul(weight);
  return bias ? x + *bias : x;
}

Tensor Tensor::layernorm(const Axes& axes, double eps) const {
  Tensor y = *this - mean(axes, true);
  return y * (y * y).mean(axes, true).add(eps).rsqrt();
}

Tensor Tensor::batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                         const Tensor& invstd, int axis) const {
  int64_t a = NormalizeAxis(axis, ndim(), "batchnorm");
  Shape shape(ndim(), 1);
  shape[a] = this->shape()[a];
  auto along = [&](const Tensor& p, const char* what) {
    if (p.ndim() != 1 || p.shape()[0] != shape[a])
      throw Error(std::string("batchnorm: ") + what + " has shape " + ShapeString(p.shape()) + "; expected (" +
                  std::to_string(shape[a]) + ") for axis " + std::to_string(axis) + " of " + ShapeString(this->shape()));
    return p.reshape(shape);
  };
  Tensor x = *this - along(mean, "mean");
  if (weight) x = x * along(*weight, "weight");
  Tensor ret = x * along(invstd, "invstd");
  return bias ? ret + along(*bias, "bias") : ret;
}

Tensor Tensor::dropout(double p) const {
  if (!(p >= 0 && p <= 1)) throw Error("dropout: p must be in [0, 1]; got " + std::to_string(p));
  if (!training() || p == 0) return *this;
  if (p == 1) return zeros_like();
  return rand(shape(), dtypes::default_float, device()).ge(p).where(*this, 0) / (1.0 - p);
}

Tensor Tensor::scaled_dot_product_attention(const Tensor& key, const Tensor& value,
                                            const std::optional<Tensor>& attn_mask, double dropout_p,
                                            bool is_causal) const {
  if (ndim() < 2 || key.ndim() < 2 || value.ndim() < 2)
    throw Error("scaled_dot_product_attention: query, key and value need at least 2 axes; got " +
                ShapeString(shape()) + ", " + ShapeString(key.shape()) + ", " + ShapeString(value.shape()));
  if (is_causal && attn_mask)
    throw Error("scaled_dot_product_attention: give attn_mask or is_causal=true, not both");
  if (key.shape().back() != shape().back() || key.shape()[key.ndim() - 2] != value.shape()[value.ndim() - 2])
    throw Error("scaled_dot_product_attention: query " + ShapeString(shape()) + ", key " + ShapeString(key.shape()) +
                " and value " + ShapeString(value.shape()) + " do not fit: query and key need the same last axis, " +
                "key and value the same sequence axis (-2)");
  Tensor qk = matmul(key.transpose(-2, -1)) / std::sqrt(static_cast<double>(shape().back()));
  std::optional<Tensor> mask = attn_mask;
  if (is_causal) {
    int64_t l = qk.shape()[qk.ndim() - 2], s = qk.shape().back();
    Tensor i = arange(0, l, 1, dtypes::int32, device()).reshape({l, 1});
    mask = arange(0, s, 1, dtypes::int32, device()).reshape({1, s}).le(i);  // keep j <= i
  }
  if (mask) {
    Tensor m = mask->dtype().is_bool() ? mask->where(0.0, -std::numeric_limits<double>::infinity()) : *mask;
    qk = qk + m;
  }
  return qk.softmax(-1).dropout(dropout_p).matmul(value);
}

}  // namespace tg
