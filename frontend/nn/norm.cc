// tg::nn normalisation layers: the statistics of each, ported from tinygrad's nn/__init__.py.
#include "frontend/nn/norm.h"

#include "frontend/nn/init.h"

namespace tg::nn {
namespace {

using internal::Filled;

std::optional<Tensor> AffineParam(bool on, const Shape& shape, float value) {
  if (!on) return std::nullopt;
  return Filled(shape, value).requires_grad(true);
}

// (1, C, 1, ..., 1) for an input of |ndim| axes: a per-channel tensor broadcast over the rest.
Shape ChannelShape(int64_t channels, int64_t ndim) {
  Shape s(static_cast<size_t>(ndim), 1);
  s[1] = channels;
  return s;
}

void CheckChannels(const Tensor& x, int64_t channels, const char* layer) {
  if (x.ndim() < 2 || x.shape()[1] != channels)
    throw Error(std::string(layer) + ": input must be (batch, " + std::to_string(channels) + ", ...); got " +
                ShapeString(x.shape()));
}

// x * weight + bias with the per-channel parameters laid along axis 1.
Tensor ChannelAffine(const Tensor& x, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias) {
  if (!weight || !bias) return x;
  Shape s = ChannelShape(weight->shape()[0], x.ndim());
  return x * weight->reshape(s) + bias->reshape(s);
}

}  // namespace

BatchNorm::BatchNorm(int64_t num_features, double eps, bool affine, bool track_running_stats, double momentum)
    : num_features(num_features), eps(eps), momentum(momentum), track_running_stats(track_running_stats),
      weight(AffineParam(affine, {num_features}, 1)), bias(AffineParam(affine, {num_features}, 0)),
      num_batches_tracked(Tensor::from_vector<int64_t>({0}, Shape{})) {
  if (track_running_stats) running_mean = Filled({num_features}, 0), running_var = Filled({num_features}, 1);
}

Tensor BatchNorm::operator()(const Tensor& x) {
  CheckChannels(x, num_features, "BatchNorm");
  if (track_running_stats && !Tensor::training())
    return x.batchnorm(weight, bias, *running_mean, running_var->add(eps).rsqrt());
  std::vector<int> reduce_axes;
  for (int a = 0; a < x.ndim(); ++a)
    if (a != 1) reduce_axes.push_back(a);
  Tensor batch_mean = x.mean(reduce_axes);
  // The mean is detached inside the variance: d(var)/d(mean) = 0, as tinygrad computes it.
  Tensor y = x - batch_mean.detach().reshape(ChannelShape(num_features, x.ndim()));
  Tensor batch_var = (y * y).mean(reduce_axes);
  if (track_running_stats) {
    double n = static_cast<double>(x.numel()), unbiased = n / (n - static_cast<double>(num_features));
    running_mean->assign(((1 - momentum) * *running_mean + momentum * batch_mean.detach()).cast(running_mean->dtype()));
    running_var->assign(
        ((1 - momentum) * *running_var + momentum * unbiased * batch_var.detach()).cast(running_var->dtype()));
    num_batches_tracked.assign(num_batches_tracked + 1);
  }
  return x.batchnorm(weight, bias, batch_mean, batch_var.add(eps).rsqrt());
}

LayerNorm::LayerNorm(const Shape& normalized_shape, double eps, bool elementwise_affine)
    : normalized_shape(normalized_shape), eps(eps),
      weight(AffineParam(elementwise_affine, normalized_shape, 1)),
      bias(AffineParam(elementwise_affine, normalized_shape, 0)) {}

Tensor LayerNorm::operator()(const Tensor& x) const {
  int64_t n = static_cast<int64_t>(normalized_shape.size());
  if (x.ndim() < n || !std::equal(normalized_shape.begin(), normalized_shape.end(), x.shape().end() - n))
    throw Error("LayerNorm: the last axes of " + ShapeString(x.shape()) + " must be " + ShapeString(normalized_shape));
  std::vector<int> axes;
  for (int i = 0; i < n; ++i) axes.push_back(-1 - i);
  Tensor y = x.layernorm(axes, eps);
  return weight && bias ? y * *weight + *bias : y;
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine)
    : num_groups(num_groups), num_channels(num_channels), eps(eps),
      weight(AffineParam(affine, {num_channels}, 1)), bias(AffineParam(affine, {num_channels}, 0)) {
  if (num_groups <= 0 || num_channels % num_groups)
    throw Error("GroupNorm: num_channels (" + std::to_string(num_channels) + ") must be a multiple of num_groups (" +
                std::to_string(num_groups) + ")");
}

Tensor GroupNorm::operator()(const Tensor& x) const {
  CheckChannels(x, num_channels, "GroupNorm");
  Tensor y = x.reshape({x.shape()[0], num_groups, -1}).layernorm({-1}, eps).reshape(x.shape());
  return ChannelAffine(y, weight, bias);
}

InstanceNorm::InstanceNorm(int64_t num_features, double eps, bool affine)
    : num_features(num_features), eps(eps), weight(AffineParam(affine, {num_features}, 1)),
      bias(AffineParam(affine, {num_features}, 0)) {}

Tensor InstanceNorm::operator()(const Tensor& x) const {
  CheckChannels(x, num_features, "InstanceNorm");
  Tensor y = x.reshape({x.shape()[0], num_features, -1}).layernorm({-1}, eps).reshape(x.shape());
  return ChannelAffine(y, weight, bias);
}

RMSNorm::RMSNorm(int64_t dim, double eps, bool elementwise_affine)
    : eps(eps), weight(AffineParam(elementwise_affine, {dim}, 1)) {}

Tensor RMSNorm::operator()(const Tensor& x) const {
  Tensor xf = x.float_();
  Tensor y = (xf * (xf.square().mean({-1}, true) + eps).rsqrt()).cast(x.dtype());
  return weight ? y * *weight : y;
}

}  // namespace tg::nn
