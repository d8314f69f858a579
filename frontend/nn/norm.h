// tg::nn normalisation layers: BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RMSNorm, with tinygrad's
// defaults (affine weight 1, bias 0). Layers of tg::nn.
#ifndef TG_FRONTEND_NN_NORM_H_
#define TG_FRONTEND_NN_NORM_H_

#include <initializer_list>
#include <optional>

#include "frontend/nn/module.h"

namespace tg::nn {

// Over (batch, channels, ...): normalises each channel. Under tg::Training it uses the batch statistics
// and moves running_mean / running_var toward them (lazily: they are realized with the next optimizer
// step when given to it, see nn::get_parameters); otherwise it uses the running statistics.
struct BatchNorm {
  explicit BatchNorm(int64_t num_features, double eps = 1e-5, bool affine = true, bool track_running_stats = true,
                     double momentum = 0.1);
  Tensor operator()(const Tensor& x);  // updates the running statistics, hence not const
  void visit(StateVisitor& v) {
    v("weight", weight), v("bias", bias), v("running_mean", running_mean), v("running_var", running_var);
    v("num_batches_tracked", num_batches_tracked);
  }

  int64_t num_features;
  double eps, momentum;
  bool track_running_stats;
  std::optional<Tensor> weight, bias;
  std::optional<Tensor> running_mean, running_var;  // present when track_running_stats
  Tensor num_batches_tracked;                         // int64 scalar, as PyTorch and tinygrad keep it
};
using BatchNorm2d = BatchNorm;
using BatchNorm3d = BatchNorm;

// Over the last normalized_shape.size() axes, which must equal normalized_shape.
struct LayerNorm {
  explicit LayerNorm(const Shape& normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  explicit LayerNorm(int64_t normalized_size, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(Shape{normalized_size}, eps, elementwise_affine) {}
  // LayerNorm({4}) and LayerNorm({2, 4}): a braced shape would otherwise be ambiguous between the two above.
  explicit LayerNorm(std::initializer_list<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(Shape(normalized_shape), eps, elementwise_affine) {}
  Tensor operator()(const Tensor& x) const;
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  Shape normalized_shape;
  double eps;
  std::optional<Tensor> weight, bias;
};

// Over (batch, num_channels, ...): normalises each of num_groups channel groups, then a per-channel affine.
struct GroupNorm {
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor operator()(const Tensor& x) const;
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  int64_t num_groups, num_channels;
  double eps;
  std::optional<Tensor> weight, bias;
};

// Over (batch, num_features, ...): normalises each channel of each sample.
struct InstanceNorm {
  explicit InstanceNorm(int64_t num_features, double eps = 1e-5, bool affine = true);
  Tensor operator()(const Tensor& x) const;
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  int64_t num_features;
  double eps;
  std::optional<Tensor> weight, bias;
};

// x / sqrt(mean(x^2, last axis) + eps) * weight, computed in float32 and cast back.
struct RMSNorm {
  explicit RMSNorm(int64_t dim, double eps = 1e-6, bool elementwise_affine = true);
  Tensor operator()(const Tensor& x) const;
  void visit(StateVisitor& v) { v("weight", weight); }

  double eps;
  std::optional<Tensor> weight;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_NORM_H_
