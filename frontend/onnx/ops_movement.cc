// Movement ONNX ops: Reshape, Flatten, Expand, Transpose, Squeeze/Unsqueeze, Tile, Concat, Slice, Split,
// Pad, CenterCropPad, DepthToSpace/SpaceToDepth, and the shape queries Shape/Size/ConstantOfShape.
// Shape arguments are read on the host (OpContext::ints), so they cost no kernel when constant.
#include <algorithm>
#include <limits>
#include <numeric>

#include "frontend/index.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;
using Pads = std::vector<std::pair<int64_t, int64_t>>;

// The shape |padding| (before, after per axis; negative crops) gives |in|, clamped to int64 so that
// hostile pads read as a huge (or negative) dim instead of overflowing.
Shape PaddedShape(const Shape& in, const Pads& padding) {
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    __int128 d = static_cast<__int128>(in[i]) + padding[i].first + padding[i].second;
    out[i] = static_cast<int64_t>(std::clamp<__int128>(d, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  }
  return out;
}

Tensor Reshape(Ctx& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> shape = c.opset() < 5 ? c.attr_ints("shape").value_or(std::vector<int64_t>{}) : c.ints(1);
  bool allow_zero = c.attr_int("allowzero", 0) != 0;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 0 && !allow_zero) {
      if (static_cast<int64_t>(i) >= x.ndim()) c.fail("shape entry " + std::to_string(i) + " is 0 (copy) but the input has rank " + std::to_string(x.ndim()));
      shape[i] = x.shape()[i];
    }
  return x.reshape(shape);
}

// Numpy broadcasting of two shapes (Expand is bidirectional).
Shape Broadcast(Shape a, Shape b, const Ctx& c) {
  if (a.size() < b.size()) std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) continue;
    if (a[i] == 1) a[i] = b[i];
    else c.fail("cannot broadcast " + ShapeString(a) + " with " + ShapeString(b));
  }
  return a;
}

std::vector<int64_t> AxesArg(Ctx& c, int64_t input_since) {
  if (c.opset() >= input_since) return c.has(1) ? c.ints(1) : std::vector<int64_t>{};
  return c.attr_ints("axes").value_or(std::vector<int64_t>{});
}

Tensor Squeeze(Ctx& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> axes = AxesArg(c, 13);
  if (axes.empty()) return x.squeeze();
  Shape out;
  std::vector<bool> drop(x.ndim(), false);
  for (int64_t a : axes) drop[NormAxis(a, x.ndim(), c)] = true;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    if (drop[i] && x.shape()[i] != 1) c.fail("cannot squeeze axis " + std::to_string(i) + " of size " + std::to_string(x.shape()[i]));
    if (!drop[i]) out.push_back(x.shape()[i]);
  }
  return x.reshape(out);
}

Tensor Unsqueeze(Ctx& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> axes = AxesArg(c, 13);
  int64_t rank = x.ndim() + static_cast<int64_t>(axes.size());
  std::vector<bool> fresh(rank, false);
  for (int64_t a : axes) fresh[NormAxis(a, rank, c)] = true;
  Shape out;
  for (int64_t i = 0, j = 0; i < rank; ++i) out.push_back(fresh[i] ? 1 : x.shape()[j++]);
  return x.reshape(out);
}

Tensor Slice(Ctx& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset() < 10) {
    starts = c.attr_ints("starts").value_or(starts);
    ends = c.attr_ints("ends").value_or(ends);
    axes = c.attr_ints("axes").value_or(axes);
  } else {
    starts = c.ints(1);
    ends = c.ints(2);
    if (c.has(3)) axes = c.ints(3);
    if (c.has(4)) steps = c.ints(4);
  }
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (starts.size() != ends.size() || axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()))
    c.fail("starts, ends, axes and steps must have one entry per sliced axis");
  std::vector<Index> index(x.ndim(), Index(tg::Slice{}));
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) c.fail("steps must not be 0");
    index[NormAxis(axes[i], x.ndim(), c)] = Index(tg::Slice{starts[i], ends[i], step});
  }
  return x[index];
}

std::vector<Tensor> Split(Ctx& c) {
  const Tensor& x = c.in(0);
  int axis = NormDimAxis(c.attr_int("axis", 0), x, c);
  std::vector<int64_t> sizes;
  if (c.opset() >= 13 && c.has(1)) sizes = c.ints(1);
  else if (c.opset() < 13) sizes = c.attr_ints("split").value_or(sizes);
  if (sizes.empty()) {
    int64_t n = c.attr_int("num_outputs", static_cast<int64_t>(c.num_outputs()));
    int64_t dim = x.shape()[axis], chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    Pads bounds;
    for (int64_t i = 0; i < x.ndim(); ++i) bounds.push_back(i == axis ? std::pair{start, start + s} : std::pair{int64_t{0}, x.shape()[i]});
    out.push_back(x.shrink(bounds));
    start += s;
  }
  if (start != x.shape()[axis]) c.fail("split sizes sum to " + std::to_string(start) + ", axis has " + std::to_string(x.shape()[axis]));
  return out;
}

Tensor Pad(Ctx& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> pads;
  double value = 0;
  std::string mode = c.attr_string("mode", "constant");
  std::vector<int64_t> axes;
  if (c.opset() < 11) {
    pads = c.attr_ints(c.opset() < 2 ? "paddings" : "pads").value_or(pads);
    value = c.attr_float("value", 0.0);
  } else {
    pads = c.ints(1);
    if (c.has(2)) value = c.floats(2).at(0);
    if (c.has(3)) axes = c.ints(3);
  }
  if (axes.empty()) {
    axes.resize(x.ndim());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (pads.size() != 2 * axes.size()) c.fail("pads has " + std::to_string(pads.size()) + " entries, needs 2 per axis (" + std::to_string(2 * axes.size()) + ")");
  Pads padding(x.ndim(), {0, 0});
  for (size_t i = 0; i < axes.size(); ++i) padding[NormAxis(axes[i], x.ndim(), c)] = {pads[i], pads[i + axes.size()]};
  c.check_output_budget((c.opset() < 11 ? std::string("attribute pads") : std::string("input 1 (pads)")) + " around " +
                            ShapeString(x.shape()),
                        PaddedShape(x.shape(), padding), x.dtype());
  if (mode == "edge") mode = "replicate";
  else if (mode == "wrap") mode = "circular";
  else if (mode != "constant" && mode != "reflect") c.fail("mode \"" + mode + "\" is not one of constant, reflect, edge, wrap");
  Scalar fill = x.dtype().is_float() ? Scalar(value) : Scalar(static_cast<int64_t>(value));
  return x.pad(padding, mode, fill);
}

Tensor CenterCropPad(Ctx& c) {
  Tensor x = c.in(0);
  std::vector<int64_t> shape = c.ints(1);
  std::vector<int64_t> axes = c.attr_ints("axes").value_or(std::vector<int64_t>{});
  if (axes.empty()) for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) axes.push_back(i);
  Pads crop(x.ndim(), {0, 0});
  for (int64_t i = 0; i < x.ndim(); ++i) crop[i] = {0, x.shape()[i]};
  Pads pad(x.ndim(), {0, 0});
  for (size_t i = 0; i < axes.size(); ++i) {
    int a = NormAxis(axes[i], x.ndim(), c);
    int64_t have = x.shape()[a], want = shape[i];
    if (want < have) crop[a] = {(have - want) / 2, (have - want) / 2 + want};
    else pad[a] = {(want - have) / 2, (want - have + 1) / 2};
  }
  Shape out = x.shape();
  for (size_t i = 0; i < axes.size(); ++i) out[NormAxis(axes[i], x.ndim(), c)] = shape.at(i);
  c.check_output_budget("input 1 (shape)", out, x.dtype());
  return x.shrink(crop).pad(pad);
}

Tensor DepthToSpace(Ctx& c) {
  const Tensor& x = c.in(0);
  int64_t bs = c.attr_int("blocksize", 1), b = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  if (c.attr_string("mode", "DCR") == "CRD")
    return x.reshape({b, ch / (bs * bs), bs, bs, h, w}).permute({0, 1, 4, 2, 5, 3}).reshape({b, ch / (bs * bs), h * bs, w * bs});
  return x.reshape({b, bs, bs, ch / (bs * bs), h, w}).permute({0, 3, 4, 1, 5, 2}).reshape({b, ch / (bs * bs), h * bs, w * bs});
}

Tensor SpaceToDepth(Ctx& c) {
  const Tensor& x = c.in(0);
  int64_t bs = c.attr_int("blocksize", 1), b = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  return x.reshape({b, ch, h / bs, bs, w / bs, bs}).permute({0, 3, 5, 1, 2, 4}).reshape({b, ch * bs * bs, h / bs, w / bs});
}

std::vector<Tensor> HostInt64(Ctx& c, std::vector<int64_t> values, Shape shape) {
  c.set_host_output(0, HostValues::Ints(values));
  return One(Tensor::from_vector<int64_t>(values, shape, c.device()));
}

std::vector<Tensor> ShapeOp(Ctx& c) {
  const Shape& s = c.in(0).shape();
  int64_t n = static_cast<int64_t>(s.size());
  auto clampi = [n](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t start = clampi(c.attr_int("start", 0)), end = clampi(c.attr_int("end", n));
  std::vector<int64_t> dims(s.begin() + start, s.begin() + std::max(start, end));
  return HostInt64(c, dims, {static_cast<int64_t>(dims.size())});
}

Tensor Tile(Ctx& c) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> repeats = c.ints(1);
  if (repeats.size() != x.shape().size())
    c.fail("input 1 (repeats) has " + std::to_string(repeats.size()) + " entries, needs one per axis of the input (" +
           std::to_string(x.ndim()) + ")");
  Shape out = x.shape();
  for (size_t i = 0; i < out.size(); ++i) {
    if (repeats[i] < 0) c.fail("input 1 (repeats) " + ShapeString(repeats) + ": repeats must not be negative");
    out[i] = out[i] != 0 && repeats[i] > std::numeric_limits<int64_t>::max() / out[i] ? std::numeric_limits<int64_t>::max()
                                                                                        : out[i] * repeats[i];
  }
  c.check_output_budget("input 1 (repeats) times " + ShapeString(x.shape()), out, x.dtype());
  return x.repeat(repeats);
}

Tensor ConstantOfShape(Ctx& c) {
  std::vector<int64_t> shape = c.ints(0);
  std::optional<Tensor> value = c.attr_tensor("value");
  c.check_output_budget("input 0 (shape)", shape, value ? value->dtype() : dtypes::float32);
  if (!value) return Tensor::zeros(shape, dtypes::float32, c.device());
  return value->reshape({}).expand(shape).contiguous();
}

}  // namespace

void RegisterMovementOps(OpRegistry& r) {
  r.add("Reshape", [](Ctx& c) { return One(Reshape(c)); });
  r.add("Flatten", [](Ctx& c) {
    const Tensor& x = c.in(0);
    int64_t axis = c.attr_int("axis", 1), outer = 1;
    if (axis < 0) axis += x.ndim();
    if (axis < 0 || axis > x.ndim()) c.fail("axis " + std::to_string(axis) + " is outside [0, rank]");
    for (int64_t i = 0; i < axis; ++i) outer *= x.shape()[i];
    int64_t inner = 1;
    for (int64_t i = axis; i < x.ndim(); ++i) inner *= x.shape()[i];
    return One(x.reshape({outer, inner}));
  });
  r.add("Expand", [](Ctx& c) {
    const Tensor& x = c.in(0);
    Shape out = Broadcast(x.shape(), c.ints(1), c);
    c.check_output_budget("input 1 (shape) broadcast with " + ShapeString(x.shape()), out, x.dtype());
    return One(x.expand(out));
  });
  r.add("Transpose", [](Ctx& c) {
    const Tensor& x = c.in(0);
    std::vector<int> perm;
    if (auto p = c.attr_ints("perm")) for (int64_t a : *p) perm.push_back(NormAxis(a, x.ndim(), c));
    else for (int64_t i = x.ndim() - 1; i >= 0; --i) perm.push_back(static_cast<int>(i));
    return One(x.permute(perm));
  });
  r.add("Squeeze", [](Ctx& c) { return One(Squeeze(c)); });
  r.add("Unsqueeze", [](Ctx& c) { return One(Unsqueeze(c)); });
  r.add("Tile", [](Ctx& c) { return One(Tile(c)); });
  r.add("Concat", [](Ctx& c) {
    std::vector<Tensor> xs = c.all_inputs();
    int axis = NormAxis(c.attr_int("axis", 0), xs.at(0).ndim(), c);
    Tensor first = xs[0];
    return One(first.cat(std::vector<Tensor>(xs.begin() + 1, xs.end()), axis));
  });
  r.add("Slice", [](Ctx& c) { return One(Slice(c)); });
  r.add("Split", Split);
  r.add("Pad", [](Ctx& c) { return One(Pad(c)); });
  r.add("CenterCropPad", [](Ctx& c) { return One(CenterCropPad(c)); });
  r.add("DepthToSpace", [](Ctx& c) { return One(DepthToSpace(c)); });
  r.add("SpaceToDepth", [](Ctx& c) { return One(SpaceToDepth(c)); });
  r.add("Shape", ShapeOp);
  r.add("Size", [](Ctx& c) { return HostInt64(c, {c.in(0).numel()}, {}); });
  r.add("ConstantOfShape", [](Ctx& c) { return One(ConstantOfShape(c)); });
}

}  // namespace tg::onnx
