// Tensor creation beyond the core: linspace, eye, and the *_like family.
#include <cmath>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {

Tensor Tensor::linspace(double start, double stop, int64_t steps, DType dtype, std::string_view device) {
  if (steps < 0) throw Error("linspace: steps must be non-negative; got " + std::to_string(steps));
  if (dtype.is_bool()) throw Error("linspace: a bool dtype is not supported; use a float or int dtype");
  if (steps == 1) return full({1}, start, dtype, device);
  return (arange(0, steps, 1, dtypes::default_float, device) * ((stop - start) / static_cast<double>(steps - 1)) +
          start)
      .cast(dtype);
}

Tensor Tensor::eye(int64_t n, std::optional<int64_t> m, DType dtype, std::string_view device) {
  int64_t cols = m.value_or(n);
  if (n < 0 || cols < 0)
    throw Error("eye: sizes must be non-negative; got n=" + std::to_string(n) + ", m=" + std::to_string(cols));
  Tensor rows = arange(0, n, 1, dtypes::int32, device).reshape({n, 1});
  return rows.eq(arange(0, cols, 1, dtypes::int32, device).reshape({1, cols})).cast(dtype);
}

Tensor Tensor::empty_like(std::optional<DType> dtype) const { return empty(shape(), dtype.value_or(this->dtype()), device()); }
Tensor Tensor::zeros_like(std::optional<DType> dtype) const { return full_like(0, dtype); }
Tensor Tensor::ones_like(std::optional<DType> dtype) const { return full_like(1, dtype); }
Tensor Tensor::full_like(Scalar value, std::optional<DType> dtype) const {
  return full(shape(), value, dtype.value_or(this->dtype()), device());
}

}  // namespace tg
