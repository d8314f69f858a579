// gather/scatter/scatter_reduce/one_hot as one-hot masks reduced along a helper axis (tinygrad's
// formulation: lazy, differentiable through WHERE and REDUCE), and masked_select/nonzero, whose
// output shape depends on the data: they read their mask on the host, as tinygrad does without size=.
#include "frontend/op_util.h"
#include "frontend/shape_util.h"
#include "frontend/index.h"

namespace tg {
namespace {

void CheckIndexTensor(const Tensor& self, const Tensor& index, const char* op) {
  if (!index.dtype().is_int())
    throw Error(std::string(op) + ": the index must have an integer dtype, got " + index.dtype().name());
  if (index.device() != self.device())
    throw Error(std::string(op) + ": the index is on " + index.device() + " but the tensor is on " + self.device());
  if (index.ndim() != self.ndim())
    throw Error(std::string(op) + ": the index has rank " + std::to_string(index.ndim()) + " but the tensor has " +
                std::to_string(self.ndim()) + "; they must match");
}

Pads ShrinkToPads(const Shape& s) {
  Pads b;
  for (int64_t x : s) b.emplace_back(0, x);
  return b;
}

}  // namespace

Tensor Tensor::gather(int dim, const Tensor& index) const {
  CheckIndexTensor(*this, index, "gather");
  int64_t d = NormalizeAxis(dim, ndim(), "gather");
  Shape keep = index.shape();
  for (int64_t i = 0; i < ndim(); ++i) {
    if (i != d && index.shape()[i] > shape()[i])
      throw Error("gather: index shape " + ShapeString(index.shape()) + " exceeds " + ShapeString(shape()) +
                  " on axis " + std::to_string(i) + " (only the gathered axis may be larger)");
    if (i == d) keep[i] = shape()[i];
  }
  // x: (..., 1 at d, ..., n) against one_hot(index): (..., k at d, ..., n); the sum over n picks.
  Tensor x = shrink(ShrinkToPads(keep)).unsqueeze(-1).transpose(-1, static_cast<int>(d));
  Tensor hot = OneHotAlongDim(index.unsqueeze(-1), shape()[d], -1, "gather");
  return SumKeepDType(hot.where(x, ValueOf(x, 0)), {-1});
}

namespace {

// tinygrad's _pre_scatter: src and mask over (*self.shape, k) where k runs over index entries along
// |d| and mask[..., t, ..., j] says entry j writes target t.
std::pair<Tensor, Tensor> PreScatter(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src,
                                     const char* op) {
  CheckIndexTensor(self, index, op);
  if (src.ndim() != self.ndim())
    throw Error(std::string(op) + ": src has rank " + std::to_string(src.ndim()) + ", the tensor " +
                std::to_string(self.ndim()));
  for (int64_t i = 0; i < self.ndim(); ++i)
    if ((i != d && index.shape()[i] > self.shape()[i]) || index.shape()[i] > src.shape()[i])
      throw Error(std::string(op) + ": index " + ShapeString(index.shape()) + " must fit in src " +
                  ShapeString(src.shape()) + " and, except on axis " + std::to_string(d) + ", in " +
                  ShapeString(self.shape()));
  if (src.dtype() != self.dtype())
    throw Error(std::string(op) + ": src dtype " + src.dtype().name() + " differs from " + self.dtype().name());
  int64_t n = self.shape()[d];
  Tensor s = src.shrink(ShrinkToPads(index.shape()));
  Shape se = s.shape();
  se.push_back(n);
  s = s.unsqueeze(-1).expand(se).transpose(-1, static_cast<int>(d));
  Tensor mask = OneHotAlongDim(index.unsqueeze(-1), n, -1, op).transpose(-1, static_cast<int>(d));
  Pads to_self;
  for (int64_t i = 0; i < self.ndim(); ++i) to_self.emplace_back(0, self.shape()[i] - s.shape()[i]);
  to_self.emplace_back(0, 0);
  return {s.pad(to_self), mask.pad(to_self)};
}

}  // namespace

Tensor Tensor::scatter(int dim, const Tensor& index, const Tensor& src) const {
  int64_t d = NormalizeAxis(dim, ndim(), "scatter");
  auto [s, mask] = PreScatter(*this, d, index, src, "scatter");
  return MaskedMerge(*this, s, mask, ndim(), 1);
}

Tensor Tensor::scatter(int dim, const Tensor& index, Scalar src, std::string_view reduce) const {
  Tensor s = Tensor::full(index.shape(), src, dtype(), device());
  if (reduce == "add") return scatter_reduce(dim, index, s, "sum");
  if (reduce == "multiply") return scatter_reduce(dim, index, s, "prod");
  if (!reduce.empty())
    throw Error("scatter: reduce must be \"\", \"add\" or \"multiply\", got \"" + std::string(reduce) + "\"");
  return scatter(dim, index, s);
}

Tensor Tensor::scatter_reduce(int dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                              bool include_self) const {
  int64_t d = NormalizeAxis(dim, ndim(), "scatter_reduce");
  if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
    throw Error("scatter_reduce: reduce must be one of sum, prod, mean, amax, amin; got \"" + std::string(reduce) + "\"");
  auto [s, mask] = PreScatter(*this, d, index, src, "scatter_reduce");
  Tensor untouched = mask.max({-1}).logical_not();  // targets no index entry writes
  auto self_or = [&](const Tensor& identity) { return include_self ? *this : untouched.where(*this, identity); };
  if (reduce == "sum") return SumKeepDType(mask.where(s, ValueOf(s, 0)), {-1}) + self_or(ValueOf(s, 0));
  if (reduce == "prod") {
    return mask.where(s, ValueOf(s, 1)).reduce(Ops::kMul, {-1}, false, "scatter_reduce") * self_or(ValueOf(s, 1));
  }
  if (reduce == "amax") return mask.where(s, DTypeMinLike(s)).max({-1}).maximum(self_or(DTypeMinLike(s)));
  if (reduce == "amin") return mask.where(s, DTypeMaxLike(s)).min({-1}).minimum(self_or(DTypeMaxLike(s)));
  Tensor count = mask.where(1, 0).sum({-1}) + (include_self ? Tensor::full(shape(), 1, dtypes::int32, device())
                                                            : untouched.where(1, 0));
  return (SumKeepDType(mask.where(s, ValueOf(s, 0)), {-1}) + self_or(ValueOf(s, 0))).div(count);
}

Tensor Tensor::one_hot(int64_t num_classes) const {
  if (!dtype().is_int()) throw Error("one_hot: needs an integer tensor, got " + dtype().name());
  if (num_classes < 0) throw Error("one_hot: num_classes must be >= 0, got " + std::to_string(num_classes));
  return OneHotAlongDim(unsqueeze(-1), num_classes, -1, "one_hot").where(1, 0);
}

Tensor Tensor::masked_select(const Tensor& mask) const {
  if (!mask.dtype().is_bool()) throw Error("masked_select: the mask must be bool, got " + mask.dtype().name());
  Shape shape = BroadcastShapes(this->shape(), mask.shape(), "masked_select");
  if (shape != this->shape())
    throw Error("masked_select: the mask " + ShapeString(mask.shape()) + " must broadcast to the tensor's shape " +
                ShapeString(this->shape()));
  std::vector<bool> m = mask.expand(shape).contiguous().to_vector<bool>();
  std::vector<int32_t> picked;
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]) picked.push_back(static_cast<int32_t>(i));
  if (picked.empty()) return ConstTensor(0, dtype(), {0}, device());
  // A static gather with known positions: differentiable, O(numel * selected) like tinygrad's.
  return flatten()[{Tensor::from_vector(picked, std::nullopt, device())}];
}

Tensor Tensor::nonzero() const {
  std::vector<bool> m = ne(scalar_like(0)).contiguous().to_vector<bool>();
  std::vector<int32_t> coords;
  int64_t count = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m[i]) continue;
    ++count;
    std::vector<int32_t> c(ndim());
    int64_t rest = static_cast<int64_t>(i);
    for (int64_t a = ndim() - 1; a >= 0; --a) c[a] = static_cast<int32_t>(rest % shape()[a]), rest /= shape()[a];
    coords.insert(coords.end(), c.begin(), c.end());
  }
  Shape out = {count, ndim()};
  if (coords.empty()) return ConstTensor(0, dtypes::int32, out, device());
  return Tensor::from_vector(coords, out, device());
}

}  // namespace tg
