// Scans and index reductions: cumsum/cumprod/cummax/cummin and argmax/argmin. A scan along an
// axis of n is a reduce over an (n, n) prefix mask, so it stays one fused, differentiable kernel.
#include <limits>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

// The identity of a reduce op in |dtype|: padding with it leaves the result unchanged.
Scalar Identity(Ops op, DType dtype) {
  if (op == Ops::kAdd) return 0;
  if (op == Ops::kMul) return 1;
  if (dtype.is_float()) return -std::numeric_limits<double>::infinity();
  if (dtype.is_bool()) return false;
  return DTypeMinInt(dtype);
}

// (n, n) bool: row i keeps columns j <= i.
Tensor PrefixMask(int64_t n, const std::string& device) {
  Tensor j = Tensor::arange(0, n, 1, dtypes::int32, device);
  return j.reshape({1, n}).le(j.reshape({n, 1}));
}

// Scan of |op| along |axis|: move it last, repeat it over a new row axis, mask the future, reduce.
Tensor ScanAlongAxis(const Tensor& x, int axis, Ops op, const char* name) {
  if (x.ndim() == 0) return x;
  int64_t a = NormalizeAxis(axis, x.ndim(), name);
  int last = static_cast<int>(x.ndim()) - 1;
  Tensor t = x.transpose(static_cast<int>(a), last);
  int64_t n = t.shape().back();
  if (n == 0) return x;
  Shape rows = t.shape();
  rows.insert(rows.end() - 1, 1);
  Shape square = t.shape();
  square.insert(square.end() - 1, n);
  Tensor grid = t.reshape(rows).expand(square);
  Tensor masked = PrefixMask(n, x.device()).where(grid, grid.scalar_like(Identity(op, x.dtype())));
  Tensor out = op == Ops::kAdd ? masked.sum({-1}) : op == Ops::kMul ? masked.prod({-1}) : masked.max({-1});
  return out.transpose(static_cast<int>(a), last);
}

}  // namespace

Tensor Tensor::cumsum(int axis) const {
  // accumulates like sum: small ints and bools in int32
  Tensor acc = cast(sum().dtype());
  return ScanAlongAxis(acc, axis, Ops::kAdd, "cumsum");
}
Tensor Tensor::cumprod(int axis) const { return ScanAlongAxis(*this, axis, Ops::kMul, "cumprod"); }

std::pair<Tensor, Tensor> Tensor::cummax(int axis) const {
  Tensor values = ScanAlongAxis(*this, axis, Ops::kMax, "cummax");
  if (ndim() == 0) return {values, zeros({}, dtypes::int32, device())};
  int64_t a = NormalizeAxis(axis, ndim(), "cummax");
  int last = static_cast<int>(ndim()) - 1;
  Tensor x = transpose(static_cast<int>(a), last), v = values.transpose(static_cast<int>(a), last);
  int64_t n = x.shape().back();
  if (n == 0) return {values, zeros(shape(), dtypes::int32, device())};
  Shape col = x.shape(), row = x.shape();
  col.push_back(1);                    // x[..., j, 1]
  row.insert(row.end() - 1, 1);        // v[..., 1, i]
  // first j <= i with x[j] == cummax[i]: the largest (n - j) among the matches
  Tensor match = x.reshape(col).eq(v.reshape(row)).bitwise_and(PrefixMask(n, device()).transpose());
  Tensor weight = arange(n, 0, -1, dtypes::int32, device()).reshape({n, 1});
  Tensor idx = (-(match.where(weight, 0).max({-2})) + n).cast(dtypes::int32);
  return {values, idx.transpose(static_cast<int>(a), last)};
}

std::pair<Tensor, Tensor> Tensor::cummin(int axis) const {
  bool flt = dtype().is_float();
  Tensor inv = flt ? neg() : bitwise_not();
  auto [values, idx] = inv.cummax(axis);
  return {flt ? values.neg() : values.bitwise_not(), idx};
}

// The first index of the maximum: the largest (n - i) among the positions equal to the max.
Tensor Tensor::argmax(std::optional<int> axis, bool keepdim) const {
  if (!axis) {
    Tensor flat = reshape({numel()}).argmax(0);
    return keepdim ? flat.reshape(Shape(ndim(), 1)) : flat;
  }
  if (ndim() == 0) return zeros({}, dtypes::int32, device());
  int64_t a = NormalizeAxis(*axis, ndim(), "argmax");
  int64_t n = shape()[a];
  if (n == 0) throw Error("argmax: axis " + std::to_string(*axis) + " of " + ShapeString(shape()) + " is empty");
  Shape weight_shape(ndim() - a, 1);
  weight_shape[0] = n;
  Tensor weight = arange(n, 0, -1, dtypes::int32, device()).reshape(weight_shape);
  Tensor is_max = eq(max({static_cast<int>(a)}, true));
  return (-(is_max.where(weight, 0).max({static_cast<int>(a)}, keepdim)) + n).cast(dtypes::int32);
}

Tensor Tensor::argmin(std::optional<int> axis, bool keepdim) const {
  if (dtype().is_float()) return neg().argmax(axis, keepdim);
  return (dtype().is_bool() ? logical_not() : bitwise_not()).argmax(axis, keepdim);
}

}  // namespace tg
