// Tensor movement ops: views recorded as RESHAPE/PERMUTE/EXPAND/PAD/SHRINK/FLIP nodes; rangeify
// turns them into index math, so none of them copies data.
#include <algorithm>

#include "frontend/shape_util.h"
#include "frontend/tensor.h"

namespace tg {
namespace {

void CheckRank(size_t given, int64_t ndim, const char* op, const char* what) {
  if (static_cast<int64_t>(given) != ndim)
    throw Error(std::string(op) + ": got " + std::to_string(given) + " " + what + " for a tensor of rank " +
                std::to_string(ndim) + "; give one per axis");
}

}  // namespace

Tensor Tensor::reshape(const Shape& new_shape) const {
  Shape shape = new_shape;
  auto inferred = std::find(shape.begin(), shape.end(), -1);
  if (inferred != shape.end()) {
    if (std::find(inferred + 1, shape.end(), -1) != shape.end())
      throw Error("reshape: " + ShapeString(new_shape) + " has more than one -1");
    int64_t known = -Numel(shape);
    if (known == 0 || numel() % known != 0)
      throw Error("reshape: cannot infer the -1 of " + ShapeString(new_shape) + " for " + std::to_string(numel()) +
                  " elements");
    *inferred = numel() / known;
  }
  for (int64_t d : shape)
    if (d < 0) throw Error("reshape: " + ShapeString(new_shape) + " has a negative dimension");
  if (Numel(shape) != numel())
    throw Error("reshape: cannot reshape " + ShapeString(this->shape()) + " (" + std::to_string(numel()) +
                " elements) to " + ShapeString(shape) + " (" + std::to_string(Numel(shape)) + " elements)");
  if (shape == this->shape()) return *this;
  return like(uop()->reshape(shape));
}

Tensor Tensor::permute(const std::vector<int>& order) const {
  CheckRank(order.size(), ndim(), "permute", "axes");
  std::vector<int64_t> perm;
  std::vector<bool> seen(ndim(), false);
  for (int axis : order) {
    int64_t a = NormalizeAxis(axis, ndim(), "permute");
    if (seen[a]) throw Error("permute: axis " + std::to_string(axis) + " appears twice; give each axis once");
    seen[a] = true;
    perm.push_back(a);
  }
  if (std::is_sorted(perm.begin(), perm.end())) return *this;
  return like(uop()->permute(perm));
}

Tensor Tensor::expand(const Shape& new_shape) const {
  if (new_shape == shape()) return *this;
  if (new_shape.size() < shape().size())
    throw Error("expand: cannot expand " + ShapeString(shape()) + " to fewer axes " + ShapeString(new_shape));
  size_t lead = new_shape.size() - shape().size();
  Shape aligned(lead, 1), target = new_shape;
  aligned.insert(aligned.end(), shape().begin(), shape().end());
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (i < lead) throw Error("expand: -1 is not allowed for the new leading axis " + std::to_string(i));
      target[i] = aligned[i];
    }
    if (aligned[i] != target[i] && aligned[i] != 1)
      throw Error("expand: cannot expand " + ShapeString(shape()) + " to " + ShapeString(new_shape) + " (axis " +
                  std::to_string(i) + " is " + std::to_string(aligned[i]) + ", only size-1 axes can grow)");
  }
  Tensor t = reshape(aligned);
  if (target == aligned) return t;
  return like(t.uop()->expand(target));
}

Tensor Tensor::pad(const std::vector<std::pair<int64_t, int64_t>>& padding, Scalar value) const {
  CheckRank(padding.size(), ndim(), "pad", "(before, after) pairs");
  // Negative padding crops: shrink first, then pad by what remains.
  std::vector<std::pair<int64_t, int64_t>> crop, grow;
  bool crops = false, grows = false;
  for (int64_t i = 0; i < ndim(); ++i) {
    auto [b, a] = padding[i];
    if (-std::min<int64_t>(b, 0) - std::min<int64_t>(a, 0) > shape()[i])
      throw Error("pad: cropping (" + std::to_string(b) + ", " + std::to_string(a) + ") removes more than axis " +
                  std::to_string(i) + " of " + ShapeString(shape()) + " holds");
    crop.emplace_back(std::max<int64_t>(-b, 0), shape()[i] - std::max<int64_t>(-a, 0));
    grow.emplace_back(std::max<int64_t>(b, 0), std::max<int64_t>(a, 0));
    crops = crops || b < 0 || a < 0;
    grows = grows || b > 0 || a > 0;
  }
  Tensor t = crops ? shrink(crop) : *this;
  if (!grows) return t;
  Tensor padded = t.like(t.uop()->pad(grow));
  if (value.value == 0) return padded;
  Tensor inside = Tensor::ones(t.shape(), dtypes::bool_, device());
  return inside.like(inside.uop()->pad(grow)).where(padded, value);
}

Tensor Tensor::shrink_to(int axis, const Tensor& length) const {
  int64_t a = axis < 0 ? axis + ndim() : axis;
  if (a < 0 || a >= ndim())
    throw Error("shrink_to: axis " + std::to_string(axis) + " is outside a tensor of rank " + std::to_string(ndim()));
  if (length.dtype() != dtypes::int32 || !length.shape().empty())
    throw Error("shrink_to: the length must be an int32 scalar (a tg::Variable's tensor, or arithmetic on one), got " +
                length.dtype().name() + " " + ShapeString(length.shape()));
  for (const UOpRef& u : length.uop()->toposort())
    if (u->op() == Ops::kBuffer || u->op() == Ops::kCopy)
      throw Error("shrink_to: the length reads tensor data; it must be computed from tg::Variables and numbers "
                  "only (a kernel's loop bound is its argument, not a load)");
  return like(uop()->var_shrink(a, length.uop()));
}

Tensor Tensor::shrink(const std::vector<std::pair<int64_t, int64_t>>& bounds) const {
  CheckRank(bounds.size(), ndim(), "shrink", "(start, stop) pairs");
  bool whole = true;
  for (int64_t i = 0; i < ndim(); ++i) {
    auto [start, stop] = bounds[i];
    if (start < 0 || start > stop || stop > shape()[i])
      throw Error("shrink: bounds (" + std::to_string(start) + ", " + std::to_string(stop) + ") are outside axis " +
                  std::to_string(i) + " of " + ShapeString(shape()) + "; need 0 <= start <= stop <= " +
                  std::to_string(shape()[i]));
    whole = whole && start == 0 && stop == shape()[i];
  }
  if (whole) return *this;
  return like(uop()->shrink(bounds));
}

Tensor Tensor::flip(const Axes& axes) const {
  std::vector<bool> flip(ndim(), false);
  for (int axis : axes) {
    int64_t a = NormalizeAxis(axis, ndim(), "flip");
    if (flip[a]) throw Error("flip: axis " + std::to_string(axis) + " appears twice");
    flip[a] = true;
  }
  if (std::none_of(flip.begin(), flip.end(), [](bool f) { return f; })) return *this;
  return like(uop()->flip(flip));
}

Tensor Tensor::transpose(int dim0, int dim1) const {
  std::vector<int> order(ndim());
  for (int i = 0; i < ndim(); ++i) order[i] = i;
  std::swap(order[NormalizeAxis(dim0, ndim(), "transpose")], order[NormalizeAxis(dim1, ndim(), "transpose")]);
  return permute(order);
}

}  // namespace tg
