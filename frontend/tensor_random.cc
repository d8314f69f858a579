// Tensor random creation on top of the Threefry stream of frontend/random.h: every draw comes from
// Tensor::rand, so one manual_seed fixes them all. Distributions follow tinygrad's formulas.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontend/random.h"
#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

void CheckFloat(DType dtype, const char* op) {
  if (!dtype.is_float()) throw Error(std::string(op) + ": needs a float dtype; got " + dtype.name());
}

void CheckBounds(double low, double high, const char* op) {
  if (!(low < high))
    throw Error(std::string(op) + ": needs low < high; got low=" + std::to_string(low) + ", high=" + std::to_string(high));
}

int64_t FanIn(const Shape& shape, const char* op) {
  if (shape.empty()) throw Error(std::string(op) + ": needs a shape with at least one axis; got ()");
  int64_t fan_in = 1;
  for (size_t i = 1; i < shape.size(); ++i) fan_in *= shape[i];
  return fan_in;
}

}  // namespace

Tensor Tensor::rand_like(std::optional<DType> dtype) const {
  DType dt = dtype.value_or(this->dtype());
  CheckFloat(dt, "rand_like");
  return rand(shape(), dt, device());
}
Tensor Tensor::randn_like(std::optional<DType> dtype) const {
  DType dt = dtype.value_or(this->dtype());
  CheckFloat(dt, "randn_like");
  return randn(shape(), dt, device());
}

Tensor Tensor::uniform(const Shape& shape, double low, double high, DType dtype, std::string_view device) {
  CheckBounds(low, high, "uniform");
  return ((high - low) * rand(shape, dtypes::default_float, device)).cast(dtype) + low;
}

Tensor Tensor::randint(const Shape& shape, int64_t low, int64_t high, DType dtype, std::string_view device) {
  if (!dtype.is_int()) throw Error("randint: needs an int dtype; got " + dtype.name());
  CheckBounds(static_cast<double>(low), static_cast<double>(high), "randint");
  // floor(u * (high - low)) in float, then the offset in the int dtype, so low stays exact
  return ((static_cast<double>(high - low) * rand(shape, dtypes::default_float, device)).floor().cast(dtype) + low);
}

Tensor Tensor::normal(const Shape& shape, double mean, double std, DType dtype, std::string_view device) {
  if (std < 0) throw Error("normal: std must be >= 0; got " + std::to_string(std));
  return std * randn(shape, dtype, device) + mean;
}

Tensor Tensor::randperm(int64_t n, DType dtype, std::string_view device) {
  if (n < 0) throw Error("randperm: n must be non-negative; got " + std::to_string(n));
  // the order of n uniform draws: a uniformly random permutation (tinygrad argsorts rand(n))
  std::vector<float> keys = UniformFloats(n);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  return from_vector(order, Shape{n}, device).cast(dtype);
}

Tensor Tensor::scaled_uniform(const Shape& shape, DType dtype, std::string_view device) {
  return uniform(shape, -1.0, 1.0, dtype, device) * std::pow(static_cast<double>(std::max<int64_t>(Numel(shape), 1)), -0.5);
}

Tensor Tensor::glorot_uniform(const Shape& shape, DType dtype, std::string_view device) {
  double bound = std::sqrt(6.0 / static_cast<double>(shape.empty() ? 1 : shape[0] + FanIn(shape, "glorot_uniform")));
  return uniform(shape, -bound, bound, dtype, device);
}

Tensor Tensor::kaiming_uniform(const Shape& shape, double a, DType dtype, std::string_view device) {
  double bound = std::sqrt(6.0 / (1 + a * a) / static_cast<double>(FanIn(shape, "kaiming_uniform")));
  return uniform(shape, -bound, bound, dtype, device);
}

Tensor Tensor::kaiming_normal(const Shape& shape, double a, DType dtype, std::string_view device) {
  double std = std::sqrt(2.0 / (1 + a * a) / static_cast<double>(FanIn(shape, "kaiming_normal")));
  return normal(shape, 0.0, std, dtype, device);
}

// Inverse-CDF sampling: index = how many cdf entries the uniform draw reaches. Without replacement,
// each draw zeroes the weight it picked before the next (sequential sampling, PyTorch's law).
Tensor Tensor::multinomial(int64_t num_samples, bool replacement) const {
  if (ndim() < 1 || ndim() > 2 || num_samples <= 0)
    throw Error("multinomial: needs a 1-D or 2-D weight tensor and num_samples > 0; got shape " +
                ShapeString(shape()) + " and num_samples " + std::to_string(num_samples));
  Tensor weight = (ndim() == 1 ? reshape({1, shape()[0]}) : *this).cast(dtypes::float32);
  int64_t rows = weight.shape()[0], n = weight.shape()[1];
  if (!replacement && num_samples > n)
    throw Error("multinomial: cannot draw " + std::to_string(num_samples) + " samples without replacement from " +
                std::to_string(n) + " categories");
  std::vector<Tensor> picks;
  Tensor classes = arange(0, n, 1, dtypes::int32, device()).reshape({1, n});
  for (int64_t drawn = 0; drawn < (replacement ? 1 : num_samples); ++drawn) {
    int64_t k = replacement ? num_samples : 1;
    Tensor cdf = weight.cumsum(1);
    cdf = cdf / cdf.shrink({{0, rows}, {n - 1, n}});
    Tensor u = rand({k, rows, 1}, dtypes::float32, device());
    Tensor idx = u.ge(cdf.reshape({1, rows, n})).sum({2}).permute({1, 0});  // (rows, k)
    idx = idx.minimum(n - 1).cast(dtypes::int32);  // guards rounding at the top of the cdf
    picks.push_back(idx);
    if (!replacement) weight = idx.eq(classes).where(0.0f, weight);
  }
  Tensor out = picks[0];
  for (size_t i = 1; i < picks.size(); ++i) out = out.pad({{0, 0}, {0, 1}}) + picks[i].pad({{0, 0}, {static_cast<int64_t>(i), 0}});
  return ndim() == 1 ? out.reshape({out.shape()[1]}) : out;
}

}  // namespace tg
