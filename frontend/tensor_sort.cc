// sort/argsort/topk as tinygrad's bitonic network: the axis is padded to a power of two and split
// into binary axes, each compare-exchange stage is a maximum/minimum of two halves (all lazy, and
// differentiable through MAX). Indices come from matching values and their occurrence counts.
#include "frontend/op_util.h"
#include "frontend/shape_util.h"

namespace tg {
namespace {

// Halves along a size-2 axis.
std::pair<Tensor, Tensor> Halves(const Tensor& x, int64_t axis) {
  auto parts = x.split(1, static_cast<int>(axis));
  return {parts[0], parts[1]};
}

}  // namespace

std::pair<Tensor, Tensor> Tensor::sort(int dim, bool descending) const {
  int64_t d = NormalizeAxis(dim, ndim(), "sort");
  int64_t n = ndim() == 0 ? 1 : shape()[d];
  if (n <= 1) return {*this, Tensor::full(shape(), 0, dtypes::int32, device())};
  int stages = 0;
  while ((int64_t{1} << stages) < n) ++stages;
  Pads pads(ndim(), {0, 0});
  pads[d] = {0, (int64_t{1} << stages) - n};
  Tensor pad_value = descending ? DTypeMinLike(*this) : DTypeMaxLike(*this);
  Tensor x = PadWith(*this, pads, pad_value.uop()->const_value()).unflatten(static_cast<int>(d), Shape(stages, 2));
  std::vector<int> flips;  // tinygrad flips the trailing axes of the lower box so all arrows agree
  for (int stage = 1; stage <= stages; ++stage) {
    int64_t cross = d + stages - stage - 1;
    flips.clear();
    for (int64_t i = 1; i <= stage + (ndim() - d); ++i) flips.push_back(static_cast<int>(-i));
    if (stage != stages) {
      auto [blue, green] = Halves(x, cross);
      x = blue.cat({green.flip(flips)}, static_cast<int>(cross)).contiguous();
    }
    for (int sub = stage - 1; sub >= 0; --sub) {
      int64_t partner = d + stages - sub - 1;
      auto [top, bottom] = Halves(x, partner);
      Tensor hi = top.maximum(bottom), lo = top.minimum(bottom);
      x = (descending ? hi.cat({lo}, static_cast<int>(partner)) : lo.cat({hi}, static_cast<int>(partner))).contiguous();
    }
    if (stage != stages) {
      auto [blue, flipped] = Halves(x, cross);
      x = blue.cat({flipped.flip(flips)}, static_cast<int>(cross));
    }
  }
  x = x.flatten(static_cast<int>(d), static_cast<int>(d + stages - 1));
  Pads keep;
  for (int64_t s : shape()) keep.emplace_back(0, s);
  x = x.shrink(keep);
  // The k-th copy of a value in the input goes to the k-th copy of it in the output (stable).
  Shape mshape = {n, n};
  mshape.insert(mshape.end(), ndim() - d - 1, 1);
  Tensor lower = Tensor::full({n, n}, true, dtypes::bool_, device()).tril().reshape(mshape);
  auto counts = [&](const Tensor& t) {
    Tensor same = t.unsqueeze(static_cast<int>(d)).eq(t.unsqueeze(static_cast<int>(d + 1)));
    return lower.where(same, false).sum({static_cast<int>(d + 1)});
  };
  Tensor c_orig = counts(*this), c_sorted = counts(x);
  Tensor match = unsqueeze(static_cast<int>(d + 1)).eq(x.unsqueeze(static_cast<int>(d)));
  match = match.where(c_orig.unsqueeze(static_cast<int>(d + 1)).eq(c_sorted.unsqueeze(static_cast<int>(d))), false);
  Tensor pos = AxisArange(n, d, ndim(), device()).unsqueeze(static_cast<int>(d + 1));
  return {x, match.where(pos, 0).sum({static_cast<int>(d)})};
}

Tensor Tensor::argsort(int dim, bool descending) const { return sort(dim, descending).second; }

std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int dim, bool largest) const {
  int64_t d = NormalizeAxis(dim, ndim(), "topk");
  int64_t n = ndim() == 0 ? 1 : shape()[d];
  if (k < 0 || k > n)
    throw Error("topk: k=" + std::to_string(k) + " is out of range for axis " + std::to_string(dim) + " of " +
                ShapeString(shape()) + " (allowed: 0 to " + std::to_string(n) + ")");
  auto [values, indices] = sort(dim, largest);
  if (ndim() == 0) return {values, indices};
  Pads keep;
  for (int64_t i = 0; i < ndim(); ++i) keep.emplace_back(0, i == d ? k : shape()[i]);
  return {values.shrink(keep), indices.shrink(keep)};
}

}  // namespace tg
