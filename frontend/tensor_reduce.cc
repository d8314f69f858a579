// Tensor reductions: sum/max/min/mean over axes with keepdim, and matmul as a reduce of a
// broadcast product (so it fuses and optimizes like any other reduce).
#include <algorithm>
#include <limits>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

std::vector<int64_t> ReduceAxes(const std::vector<int>& axes, int64_t ndim, const char* op) {
  std::vector<int64_t> out;
  if (axes.empty())
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
  for (int axis : axes) out.push_back(NormalizeAxis(axis, ndim, op));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// tinygrad's accumulation dtypes: small ints sum in 32 bits, half floats in float32.
DType SumAccDType(DType d) {
  if (d.is_bool()) return dtypes::int32;
  if (d.is_unsigned()) return d.itemsize() < 4 ? dtypes::uint32 : d;
  if (d.is_int()) return d.itemsize() < 4 ? dtypes::int32 : d;
  if (d == dtypes::float16 || d == dtypes::bfloat16) return dtypes::float32;
  return d;
}

}  // namespace

Tensor Tensor::reduce(Ops op, const std::vector<int>& axes, bool keepdim, const char* name) const {
  std::vector<int64_t> ax = ReduceAxes(axes, ndim(), name);
  Tensor reduced = ndim() == 0 ? *this : like(uop()->reduce(op, ax));
  if (keepdim) return reduced;
  Shape shape;
  for (int64_t i = 0; i < ndim(); ++i)
    if (!std::binary_search(ax.begin(), ax.end(), i)) shape.push_back(this->shape()[i]);
  return reduced.reshape(shape);
}

Tensor Tensor::sum(const Axes& axes, bool keepdim) const {
  DType acc = SumAccDType(dtype());
  Tensor out = cast(acc).reduce(Ops::kAdd, axes, keepdim, "sum");
  // Half floats accumulate in float32 but keep their dtype, as in tinygrad.
  return dtype().is_float() ? out.cast(dtype()) : out;
}

Tensor Tensor::max(const Axes& axes, bool keepdim) const {
  return reduce(Ops::kMax, axes, keepdim, "max");
}

Tensor Tensor::min(const Axes& axes, bool keepdim) const {
  if (dtype().is_bool()) return logical_not().max(axes, keepdim).logical_not();
  return neg().max(axes, keepdim).neg();
}

Tensor Tensor::mean(const Axes& axes, bool keepdim) const {
  Tensor total = sum(axes, keepdim);
  int64_t count = total.numel() == 0 ? 0 : numel() / total.numel();
  Tensor out = total.cast(dtype().is_float() ? dtype() : dtypes::default_float) * (1.0 / std::max<int64_t>(count, 1));
  return count == 0 ? out * std::numeric_limits<double>::quiet_NaN() : out;
}

Tensor Tensor::sum(const Axes& axes, bool keepdim, DType dtype) const {
  return cast(dtype).reduce(Ops::kAdd, axes, keepdim, "sum");
}

Tensor Tensor::prod(const Axes& axes, bool keepdim) const {
  return reduce(Ops::kMul, axes, keepdim, "prod");
}

Tensor Tensor::any(const Axes& axes, bool keepdim) const {
  return cast(dtypes::bool_).max(axes, keepdim);
}

Tensor Tensor::all(const Axes& axes, bool keepdim) const {
  return cast(dtypes::bool_).prod(axes, keepdim);
}

Tensor Tensor::var(const Axes& axes, bool keepdim, double correction) const {
  DType out = dtype().is_float() ? dtype() : dtypes::default_float;
  Tensor squares = (*this - mean(axes, true)).square();
  Tensor total = squares.sum(axes, keepdim);
  int64_t n = total.numel() == 0 ? 0 : numel() / total.numel();
  return total.div(std::max(static_cast<double>(n) - correction, 0.0)).cast(out);
}

Tensor Tensor::std(const Axes& axes, bool keepdim, double correction) const {
  return var(axes, keepdim, correction).sqrt();
}

std::pair<Tensor, Tensor> Tensor::var_mean(const Axes& axes, bool keepdim, double correction) const {
  return {var(axes, keepdim, correction), mean(axes, keepdim)};
}

std::pair<Tensor, Tensor> Tensor::std_mean(const Axes& axes, bool keepdim, double correction) const {
  return {std(axes, keepdim, correction), mean(axes, keepdim)};
}

// The max is detached: it only shifts the exponent for stability and cancels in the gradient.
Tensor Tensor::logsumexp(const Axes& axes, bool keepdim) const {
  for (int a : axes) NormalizeAxis(a, ndim(), "logsumexp");
  Tensor m = max(axes, true).detach();
  Tensor m_out = keepdim ? m : m.reshape(sum(axes, false).shape());
  return (*this - m).exp().sum(axes, keepdim).log() + m_out;
}

Tensor Tensor::softmax(int axis) const {
  NormalizeAxis(axis, ndim(), "softmax");  // name this op, not the max inside it, in the error
  Tensor e = (*this - max({axis}, true).detach()).exp();
  return e * e.sum({axis}, true).reciprocal();
}

Tensor Tensor::log_softmax(int axis) const {
  NormalizeAxis(axis, ndim(), "log_softmax");
  Tensor m = *this - max({axis}, true).detach();
  return m - m.exp().sum({axis}, true).log();
}

Tensor Tensor::softmin(int axis) const { return neg().softmax(axis); }

// numpy matmul: 1-D operands gain an axis that is dropped again; batch axes broadcast.
Tensor Tensor::matmul(const Tensor& other) const {
  int64_t n1 = ndim(), n2 = other.ndim();
  if (n1 == 0 || n2 == 0)
    throw Error("matmul: both operands need at least one axis; got shapes " + ShapeString(shape()) + " and " +
                ShapeString(other.shape()));
  int64_t k2_axis = n2 == 1 ? 0 : n2 - 2;
  if (shape().back() != other.shape()[k2_axis])
    throw Error("matmul: shapes " + ShapeString(shape()) + " and " + ShapeString(other.shape()) +
                " do not line up (" + std::to_string(shape().back()) + " != " +
                std::to_string(other.shape()[k2_axis]) + ")");
  // x: (..., n, 1, k)  w: (..., 1, m, k)  ->  (x * w).sum(-1): (..., n, m)
  int64_t inserts = std::min<int64_t>({n1 - 1, n2 - 1, 1});
  Shape xs(shape().begin(), shape().end() - 1);
  xs.insert(xs.end(), inserts, 1);
  xs.push_back(shape().back());
  Shape ws(other.shape().begin(), other.shape().end() - std::min<int64_t>(n2, 2));
  ws.insert(ws.end(), inserts, 1);
  ws.insert(ws.end(), other.shape().end() - std::min<int64_t>(n2, 2), other.shape().end());
  Tensor w = other.reshape(ws).transpose(-1, -static_cast<int>(std::min<int64_t>(n2, 2)));
  return (reshape(xs) * w).sum({-1});
}

}  // namespace tg
