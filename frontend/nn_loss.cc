// Losses with reduction "none" / "sum" / "mean", as tinygrad defines them. Class indices select
// through a one-hot comparison against arange, so every loss is one lazy graph with gradients.
#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

void CheckReduction(std::string_view reduction, const char* op) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    throw Error(std::string(op) + ": reduction \"" + std::string(reduction) +
                "\" is not supported; use \"none\", \"sum\" or \"mean\"");
}

Tensor Reduce(const Tensor& loss, std::string_view reduction) {
  if (reduction == "sum") return loss.sum();
  if (reduction == "mean") return loss.mean();
  return loss;
}

void CheckIndices(const Tensor& y, const char* op) {
  if (!y.dtype().is_int())
    throw Error(std::string(op) + ": class indices must be an int tensor; got " + y.dtype().name());
}

// bool: y gains an axis at |dim| holding (y == class) for the |n| classes.
Tensor OneHotAlong(const Tensor& y, int64_t n, int64_t dim) {
  Shape ys = y.shape();
  ys.insert(ys.begin() + dim, 1);
  Shape cs(ys.size(), 1);
  cs[dim] = n;
  return y.reshape(ys).eq(Tensor::arange(0, n, 1, y.dtype(), y.device()).reshape(cs));
}

Shape DropAxis(Shape s, int64_t axis) {
  s.erase(s.begin() + axis);
  return s;
}

}  // namespace

Tensor Tensor::binary_crossentropy(const Tensor& y, std::string_view reduction) const {
  CheckReduction(reduction, "binary_crossentropy");
  BroadcastShapes(shape(), y.shape(), "binary_crossentropy");
  return Reduce(-y * log() - (1 - y) * (1 - *this).log(), reduction);
}

Tensor Tensor::binary_crossentropy_logits(const Tensor& y, std::string_view reduction,
                                          const std::optional<Tensor>& pos_weight) const {
  CheckReduction(reduction, "binary_crossentropy_logits");
  BroadcastShapes(shape(), y.shape(), "binary_crossentropy_logits");
  Tensor positive = pos_weight ? *pos_weight * y * logsigmoid() : y * logsigmoid();
  return Reduce(-(positive + (1 - y) * (-*this).logsigmoid()), reduction);
}

Tensor Tensor::sparse_categorical_crossentropy(const Tensor& y, int64_t ignore_index, double label_smoothing,
                                               std::string_view reduction) const {
  const char* op = "sparse_categorical_crossentropy";
  CheckReduction(reduction, op);
  CheckIndices(y, op);
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error(std::string(op) + ": label_smoothing must be in [0, 1]; got " + std::to_string(label_smoothing));
  if (ndim() < 1 || y.shape() != DropAxis(shape(), ndim() - 1))
    throw Error(std::string(op) + ": logits " + ShapeString(shape()) + " need targets of shape " +
                (ndim() < 1 ? std::string("(...)") : ShapeString(DropAxis(shape(), ndim() - 1))) + "; got " +
                ShapeString(y.shape()));
  Tensor log_probs = log_softmax(-1);
  Tensor mask = ignore_index != -1 ? y.ne(ignore_index) : y.full_like(true, dtypes::bool_);
  Shape with_class = y.shape();
  with_class.push_back(1);
  Tensor target = OneHotAlong(y, shape().back(), y.ndim()).bitwise_and(mask.reshape(with_class));
  Tensor smoothing = label_smoothing * (log_probs.mean({-1}) * mask);
  Tensor unreduced = (1 - label_smoothing) * (log_probs * target).sum({-1}) + smoothing;
  if (reduction == "mean") return -unreduced.sum() / mask.sum();
  return -Reduce(unreduced, reduction);
}

Tensor Tensor::cross_entropy(const Tensor& y, std::string_view reduction, double label_smoothing) const {
  CheckReduction(reduction, "cross_entropy");
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error("cross_entropy: label_smoothing must be in [0, 1]; got " + std::to_string(label_smoothing));
  if (ndim() < 1) throw Error("cross_entropy: logits need at least one axis; got shape ()");
  int64_t classes_dim = ndim() == 1 ? 0 : 1;
  int64_t classes = shape()[classes_dim];
  Tensor target = y;
  if (y.shape() != shape()) {
    if (y.shape() != DropAxis(shape(), classes_dim))
      throw Error("cross_entropy: logits " + ShapeString(shape()) + " need targets shaped like them or " +
                  ShapeString(DropAxis(shape(), classes_dim)) + "; got " + ShapeString(y.shape()));
    CheckIndices(y, "cross_entropy");
    target = OneHotAlong(y, classes, classes_dim);
  }
  target = (1 - label_smoothing) * target + label_smoothing / static_cast<double>(classes);
  int dim = static_cast<int>(classes_dim);
  return Reduce(-(log_softmax(dim) * target).sum({dim}), reduction);
}

Tensor Tensor::nll_loss(const Tensor& y, const std::optional<Tensor>& weight, std::optional<int64_t> ignore_index,
                        std::string_view reduction) const {
  CheckReduction(reduction, "nll_loss");
  CheckIndices(y, "nll_loss");
  int64_t classes_dim = ndim() == 1 ? 0 : 1;
  if (ndim() < 1 || y.shape() != DropAxis(shape(), classes_dim))
    throw Error("nll_loss: log-probabilities " + ShapeString(shape()) + " need targets of shape " +
                (ndim() < 1 ? std::string("(...)") : ShapeString(DropAxis(shape(), classes_dim))) + "; got " +
                ShapeString(y.shape()));
  int64_t classes = shape()[classes_dim];
  int dim = static_cast<int>(classes_dim);
  Tensor picked = OneHotAlong(y, classes, classes_dim);  // gathers this[y] along the class axis
  Tensor w = y.full_like(1);
  if (weight) {
    if (weight->shape() != Shape{classes})
      throw Error("nll_loss: weight has shape " + ShapeString(weight->shape()) + "; expected (" +
                  std::to_string(classes) + ")");
    Shape along(picked.ndim(), 1);
    along[classes_dim] = classes;
    w = picked.where(weight->reshape(along), 0.0).sum({dim});
  }
  Tensor masked = ignore_index ? w * y.ne(*ignore_index) : w;
  Tensor nll = -picked.where(*this, 0.0).sum({dim}) * masked;
  if (reduction == "mean") return nll.sum() / masked.sum();
  return Reduce(nll, reduction);
}

}  // namespace tg
