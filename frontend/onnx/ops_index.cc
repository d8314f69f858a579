// Indexing ONNX ops: Gather/GatherElements/GatherND, Scatter/ScatterElements/ScatterND, OneHot, NonZero,
// Compress, TopK, Trilu. Indices may be negative (ONNX counts them from the end); we normalize first.
#include "frontend/index.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

// idx < 0 ? idx + dim : idx, kept in idx's dtype.
Tensor Wrap(const Tensor& idx, int64_t dim) { return (idx < 0).where(idx + dim, idx); }

Tensor Gather(Ctx& c) {
  const Tensor& x = c.in(0);
  int axis = NormDimAxis(c.attr_int("axis", 0), x, c);
  int64_t dim = x.shape()[axis];
  if (c.host_known(1) && c.ints(1).size() <= 16) {
    // Constant indices (Shape -> Gather in exported models): slices instead of a one-hot gather kernel.
    std::vector<int64_t> ids = c.ints(1);
    std::vector<Tensor> parts;
    for (int64_t i : ids) {
      int64_t j = i < 0 ? i + dim : i;
      if (j < 0 || j >= dim) c.fail("index " + std::to_string(i) + " is out of range for axis " + std::to_string(axis) + " of size " + std::to_string(dim));
      std::vector<std::pair<int64_t, int64_t>> bounds;
      for (int64_t a = 0; a < x.ndim(); ++a) bounds.push_back(a == axis ? std::pair{j, j + 1} : std::pair{int64_t{0}, x.shape()[a]});
      parts.push_back(x.shrink(bounds));
    }
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    const Shape& ishape = c.in(1).shape();
    out.insert(out.end(), ishape.begin(), ishape.end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    if (parts.empty()) return Tensor::zeros(out, x.dtype(), x.device());
    Tensor joined = parts.size() == 1 ? parts[0] : parts[0].cat(std::vector<Tensor>(parts.begin() + 1, parts.end()), axis);
    return joined.reshape(out);
  }
  std::vector<Index> index(axis, Index(tg::Slice{}));
  index.emplace_back(Wrap(c.in(1), dim));
  return x[index];
}

Tensor GatherND(Ctx& c) {
  Tensor x = c.in(0), idx = c.in(1);
  int64_t b = c.attr_int("batch_dims", 0), k = idx.shape().back();
  Shape xs = x.shape(), is = idx.shape();
  int64_t batch = 1;
  for (int64_t i = 0; i < b; ++i) batch *= xs[i];
  x = x.reshape([&] { Shape s{batch}; s.insert(s.end(), xs.begin() + b, xs.end()); return s; }());
  Shape inner(is.begin() + b, is.end());
  inner.insert(inner.begin(), batch);
  idx = idx.reshape(inner);
  std::vector<Index> index;
  Shape bshape(idx.ndim() - 1, 1);
  bshape[0] = batch;
  Shape grid(idx.shape().begin(), idx.shape().end() - 1);
  index.emplace_back(Tensor::arange(0, batch, 1, dtypes::int32, x.device()).reshape(bshape).expand(grid));
  for (int64_t j = 0; j < k; ++j) {
    Tensor part = idx[{Ellipsis, j}];
    index.emplace_back(Wrap(part, xs[b + j]));
  }
  Tensor out = x[index];
  Shape final_shape(xs.begin(), xs.begin() + b);
  final_shape.insert(final_shape.end(), is.begin() + b, is.end() - 1);
  final_shape.insert(final_shape.end(), xs.begin() + b + k, xs.end());
  return out.reshape(final_shape);
}

Tensor ScatterElements(Ctx& c) {
  const Tensor& x = c.in(0);
  int axis = NormDimAxis(c.attr_int("axis", 0), x, c);
  Tensor idx = Wrap(c.in(1), x.shape()[axis]);
  std::string red = c.attr_string("reduction", "none");
  if (red == "none") return x.scatter(axis, idx, c.in(2));
  const std::map<std::string, std::string> names = {{"add", "sum"}, {"mul", "prod"}, {"min", "amin"}, {"max", "amax"}};
  if (!names.count(red)) c.fail("reduction \"" + red + "\" is not one of none, add, mul, min, max");
  return x.scatter_reduce(axis, idx, c.in(2), names.at(red));
}

// ScatterND as one scatter along a flattened leading axis: x viewed as (prod(shape[:k]), rest...), each
// index row turned into a linear position there.
Tensor ScatterND(Ctx& c) {
  const Tensor& x = c.in(0);
  Tensor idx = c.in(1), upd = c.in(2);
  int64_t k = idx.shape().back(), lead = 1;
  for (int64_t i = 0; i < k; ++i) lead *= x.shape()[i];
  Shape rest(x.shape().begin() + k, x.shape().end());
  int64_t n = idx.numel() / std::max<int64_t>(k, 1), rest_n = 1;
  for (int64_t d : rest) rest_n *= d;
  Tensor lin = Tensor::zeros({n}, dtypes::int64, x.device());
  Tensor rows = idx.cast(dtypes::int64).reshape({n, k});
  for (int64_t i = 0; i < k; ++i) lin = lin * x.shape()[i] + Wrap(rows[{tg::Slice{}, i}], x.shape()[i]);
  Tensor flat = x.reshape({lead, rest_n});
  Tensor where = lin.cast(dtypes::int32).reshape({n, 1}).expand({n, rest_n});
  Tensor src = upd.reshape({n, rest_n});
  std::string red = c.attr_string("reduction", "none");
  Tensor out = red == "none" ? flat.scatter(0, where, src)
               : red == "add" ? flat.scatter_reduce(0, where, src, "sum")
               : red == "mul" ? flat.scatter_reduce(0, where, src, "prod")
               : red == "min" ? flat.scatter_reduce(0, where, src, "amin")
               : red == "max" ? flat.scatter_reduce(0, where, src, "amax")
                              : (c.fail("reduction \"" + red + "\" is not one of none, add, mul, min, max"), x);
  return out.reshape(x.shape());
}

Tensor OneHot(Ctx& c) {
  Tensor idx = c.in(0);
  int64_t depth = static_cast<int64_t>(c.floats(1).at(0));
  const Tensor& values = c.in(2);
  int axis = NormAxis(c.attr_int("axis", -1), idx.ndim() + 1, c);
  Shape out = idx.shape();
  out.insert(out.begin() + axis, depth);
  c.check_output_budget("input 1 (depth) " + std::to_string(depth), out, values.dtype());
  idx = idx.dtype().is_float() ? idx.cast(dtypes::int64) : idx.cast(dtypes::int64);
  idx = Wrap(idx, depth).unsqueeze(axis);
  Shape along(idx.ndim(), 1);
  along[axis] = depth;
  Tensor hot = idx.eq(Tensor::arange(0, depth, 1, dtypes::int64, idx.device()).reshape(along));
  return hot.where(values[{1}], values[{0}]);
}

Tensor Compress(Ctx& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> cond = c.ints(1);
  int axis = 0;
  if (c.has_attr("axis")) axis = NormDimAxis(c.attr_int("axis", 0), x, c);
  else x = x.flatten();
  std::vector<int32_t> keep;
  for (size_t i = 0; i < cond.size() && static_cast<int64_t>(i) < x.shape()[axis]; ++i)
    if (cond[i]) keep.push_back(static_cast<int32_t>(i));
  Shape out = x.shape();
  out[axis] = static_cast<int64_t>(keep.size());
  if (keep.empty()) return Tensor::zeros(out, x.dtype(), x.device());
  std::vector<Index> index(axis, Index(tg::Slice{}));
  index.emplace_back(Tensor::from_vector<int32_t>(keep, std::nullopt, x.device()));
  return x[index];
}

std::vector<Tensor> TopK(Ctx& c) {
  const Tensor& x = c.in(0);
  int64_t k = c.opset() < 10 ? c.attr_int("k", 1) : c.ints(1).at(0);
  int axis = NormAxis(c.attr_int("axis", -1), x.ndim(), c);
  auto [values, indices] = x.topk(k, axis, c.attr_int("largest", 1) != 0);
  return {values, indices.cast(dtypes::int64)};
}

}  // namespace

void RegisterIndexOps(OpRegistry& r) {
  r.add("Gather", [](Ctx& c) { return One(Gather(c)); });
  r.add("GatherElements", [](Ctx& c) {
    const Tensor& x = c.in(0);
    int axis = NormDimAxis(c.attr_int("axis", 0), x, c);
    return One(x.gather(axis, Wrap(c.in(1), x.shape()[axis])));
  });
  r.add("GatherND", [](Ctx& c) { return One(GatherND(c)); });
  r.add("Scatter", [](Ctx& c) { return One(ScatterElements(c)); });
  r.add("ScatterElements", [](Ctx& c) { return One(ScatterElements(c)); });
  r.add("ScatterND", [](Ctx& c) { return One(ScatterND(c)); });
  r.add("OneHot", [](Ctx& c) { return One(OneHot(c)); });
  r.add("NonZero", [](Ctx& c) {
    const Tensor& x = c.in(0);
    if (x.ndim() == 0) c.fail("input must have rank >= 1");
    return One(x.nonzero().transpose().cast(dtypes::int64));
  });
  r.add("Compress", [](Ctx& c) { return One(Compress(c)); });
  r.add("TopK", TopK);
  r.add("Trilu", [](Ctx& c) {
    int64_t k = c.has(1) ? c.ints(1).at(0) : 0;
    return One(c.attr_int("upper", 1) ? c.in(0).triu(k) : c.in(0).tril(k));
  });
}

}  // namespace tg::onnx
