// Neural-network ONNX ops: Conv/ConvTranspose, pools, Gemm/MatMul/Einsum, the normalizations, LRN,
// Dropout (inference), and the two losses. ONNX pads list every begin then every end, first axis first;
// the Tensor API takes PyTorch's flat order (last axis first, before/after pairs): FlatPads converts.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;
using Ints = std::vector<int64_t>;

Ints PerAxis(const Ctx& c, const char* name, size_t n, int64_t fallback) {
  Ints v = c.attr_ints(name).value_or(Ints(n, fallback));
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n) c.fail(std::string(name) + " has " + std::to_string(v.size()) + " entries, needs " + std::to_string(n));
  return v;
}

// ONNX begin/end pads -> PyTorch flat order.
Ints FlatPads(const Ints& pads) {
  size_t n = pads.size() / 2;
  Ints flat;
  for (size_t i = n; i-- > 0;) flat.push_back(pads[i]), flat.push_back(pads[i + n]);
  return flat;
}

// Explicit or auto_pad padding (ONNX order) for a window op over the spatial axes of |x|.
Ints ResolvePads(const Ctx& c, const Tensor& x, const Ints& k, const Ints& s, const Ints& d) {
  size_t n = k.size();
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    Ints p = c.attr_ints("pads").value_or(Ints(2 * n, 0));
    if (p.size() != 2 * n) c.fail("pads has " + std::to_string(p.size()) + " entries, needs " + std::to_string(2 * n));
    return p;
  }
  if (auto_pad == "VALID") return Ints(2 * n, 0);
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
    c.fail("auto_pad \"" + auto_pad + "\" is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  Ints p(2 * n);
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.shape()[x.ndim() - n + i], out = (in + s[i] - 1) / s[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in);
    int64_t small = total / 2, big = total - small;
    p[i] = auto_pad == "SAME_UPPER" ? small : big;
    p[i + n] = auto_pad == "SAME_UPPER" ? big : small;
  }
  return p;
}

Tensor Conv(Ctx& c, const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias) {
  Ints k(w.shape().begin() + 2, w.shape().end());
  size_t n = k.size();
  Ints s = PerAxis(c, "strides", n, 1), d = PerAxis(c, "dilations", n, 1);
  return x.conv2d(w, bias, c.attr_int("group", 1), s, d, FlatPads(ResolvePads(c, x, k, s, d)));
}

// A 2-D ConvTranspose whose kernel equals its stride (no padding, dilation or groups), as in upsampling
// heads (PaddleOCR's detector): every input pixel writes its own kh x kw output patch, so the op is one
// matmul over the input channels. The general lowering convolves a zero-dilated input instead, doing
// kh*kw times the multiply-adds (three quarters of them on zeros for 2x2).
bool IsPatchScatter(const Tensor& x, const Ints& k, const Ints& s, const Ints& d, const Ints& pads, const Ints& op,
                    int64_t group) {
  auto all_zero = [](const Ints& v) { return std::all_of(v.begin(), v.end(), [](int64_t e) { return e == 0; }); };
  return x.ndim() == 4 && k.size() == 2 && k == s && d == Ints{1, 1} && group == 1 && all_zero(pads) && all_zero(op);
}

// y[n, o, h*kh + i, w*kw + j] = sum_c x[n, c, h, w] * W[c, o, i, j] (+ b[o]).
Tensor PatchScatter(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias) {
  int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  int64_t o = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  Tensor patches = x.permute({0, 2, 3, 1}).reshape({n * h * wd, c}).matmul(w.reshape({c, o * kh * kw}));
  Tensor y = patches.reshape({n, h, wd, o, kh, kw}).permute({0, 3, 1, 4, 2, 5}).reshape({n, o, h * kh, wd * kw});
  return bias ? y + bias->reshape({1, o, 1, 1}) : y;
}

Tensor ConvTranspose(Ctx& c) {
  const Tensor& x = c.in(0);
  const Tensor& w = c.in(1);
  Ints k(w.shape().begin() + 2, w.shape().end());
  size_t n = k.size();
  Ints s = PerAxis(c, "strides", n, 1), d = PerAxis(c, "dilations", n, 1), op = PerAxis(c, "output_padding", n, 0);
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  Ints pads = c.attr_ints("pads").value_or(Ints{});
  auto from_total = [&](const Ints& total) {  // SAME_UPPER puts the extra pad at the end, as for Conv
    Ints p(2 * n);
    for (size_t i = 0; i < n; ++i) {
      int64_t t = total[i], small = t / 2, big = t - small;
      p[i] = auto_pad == "SAME_UPPER" || auto_pad == "NOTSET" ? small : big;
      p[i + n] = t - p[i];
    }
    return p;
  };
  if (auto out_shape = c.attr_ints("output_shape")) {
    Ints tail(out_shape->end() - n, out_shape->end()), total(n);
    for (size_t i = 0; i < n; ++i)
      total[i] = s[i] * (x.shape()[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - tail[i];
    pads = from_total(total);
  } else if (pads.empty()) {
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      Ints total(n);
      for (size_t i = 0; i < n; ++i)
        total[i] = s[i] * (x.shape()[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - x.shape()[2 + i] * s[i];
      pads = from_total(total);
    } else {
      pads.assign(2 * n, 0);
    }
  }
  if (IsPatchScatter(x, k, s, d, pads, op, c.attr_int("group", 1))) return PatchScatter(x, w, c.opt(2));
  return x.conv_transpose2d(w, c.opt(2), c.attr_int("group", 1), s, d, FlatPads(pads), op);
}

std::vector<Tensor> Pool(Ctx& c, bool is_max) {
  const Tensor& x = c.in(0);
  Ints k = c.attr_ints("kernel_shape").value_or(Ints{});
  if (k.empty()) c.fail("attribute kernel_shape is required");
  size_t n = k.size();
  Ints s = PerAxis(c, "strides", n, 1), d = PerAxis(c, "dilations", n, 1);
  Ints pads = FlatPads(ResolvePads(c, x, k, s, d));
  bool ceil = c.attr_int("ceil_mode", 0) != 0;
  if (!is_max) return One(x.avg_pool2d(k, s, d, pads, ceil, c.attr_int("count_include_pad", 0) != 0));
  if (c.num_outputs() < 2 || c.node().outputs[1].empty()) return One(x.max_pool2d(k, s, d, pads, ceil));
  auto [y, plane_idx] = x.max_pool2d_with_indices(k, s, d, pads, ceil);
  // ONNX indexes the whole tensor, PyTorch each plane; storage_order 1 means column-major planes.
  Tensor idx = plane_idx.cast(dtypes::int64);
  if (n == 2 && c.attr_int("storage_order", 0)) {
    int64_t h = x.shape()[x.ndim() - 2], w = x.shape()[x.ndim() - 1];
    idx = (idx % w) * h + idx.div(Scalar(w), "floor");
  }
  int64_t plane = 1;
  for (size_t i = 0; i < n; ++i) plane *= x.shape()[x.ndim() - n + i];
  int64_t planes = 1;
  for (size_t i = 0; i < x.ndim() - n; ++i) planes *= x.shape()[i];
  Shape lead(x.shape().begin(), x.shape().end() - n);
  Shape offset_shape = lead;
  offset_shape.insert(offset_shape.end(), n, 1);
  Tensor offsets = (Tensor::arange(0, planes, 1, dtypes::int64, x.device()) * plane).reshape(offset_shape);
  return {y, idx + offsets};
}

Tensor Gemm(Ctx& c) {
  Tensor a = c.in(0), b = c.in(1);
  if (c.attr_int("transA", 0)) a = a.transpose();
  if (c.attr_int("transB", 0)) b = b.transpose();
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  Tensor y = a.matmul(b);
  if (alpha != 1.0) y = y * alpha;
  if (c.has(2)) y = y + (beta != 1.0 ? c.in(2) * beta : c.in(2));
  return y.cast(c.in(0).dtype());
}

// Mean and biased variance over |axes| in float32, as ONNX's stash_type 1.
std::vector<Tensor> BatchNorm(Ctx& c) {
  const Tensor& x = c.in(0);
  const Tensor &scale = c.in(1), &bias = c.in(2), &mean = c.in(3), &var = c.in(4);
  double eps = c.attr_float("epsilon", 1e-5);
  bool training = c.opset() >= 14 ? c.attr_int("training_mode", 0) != 0 : c.num_outputs() > 1 && c.opset() < 9;
  if (!training) return One(x.batchnorm(scale, bias, mean, (var + eps).rsqrt()));
  std::vector<int> axes{0};
  for (int i = 2; i < x.ndim(); ++i) axes.push_back(i);
  auto [cur_var, cur_mean] = x.var_mean(axes, false, 0);
  double momentum = c.attr_float("momentum", 0.9);
  Tensor y = x.batchnorm(scale, bias, cur_mean, (cur_var + eps).rsqrt());
  return {y, mean * momentum + cur_mean * (1 - momentum), var * momentum + cur_var * (1 - momentum)};
}

// (x - mean) * invstd over the trailing axes from |axis|, computed in float32.
std::vector<Tensor> LayerNorm(Ctx& c) {
  const Tensor& x = c.in(0);
  int axis = NormAxis(c.attr_int("axis", -1), x.ndim(), c);
  std::vector<int> axes;
  for (int i = axis; i < x.ndim(); ++i) axes.push_back(i);
  Tensor xf = x.cast(dtypes::float32);
  Tensor mean = xf.mean(axes, true);
  Tensor invstd = (xf - mean).square().mean(axes, true).add(c.attr_float("epsilon", 1e-5)).rsqrt();
  Tensor y = ((xf - mean) * invstd).cast(x.dtype()) * c.in(1);
  if (c.has(2)) y = y + c.in(2);
  return {y, mean, invstd};
}

Tensor GroupNorm(Ctx& c, int64_t groups) {
  const Tensor& x = c.in(0);
  int64_t ch = x.shape()[1];
  Tensor normed = x.reshape({x.shape()[0], groups, -1}).cast(dtypes::float32)
                      .layernorm({-1}, c.attr_float("epsilon", 1e-5)).cast(x.dtype()).reshape(x.shape());
  Shape along(x.ndim(), 1);
  along[1] = ch;
  Tensor scale = c.in(1), bias = c.in(2);
  if (scale.numel() != ch) scale = scale.repeat_interleave(ch / groups);  // opset 18: one per group
  if (bias.numel() != ch) bias = bias.repeat_interleave(ch / groups);
  return normed * scale.reshape(along) + bias.reshape(along);
}

Tensor Lrn(Ctx& c) {
  const Tensor& x = c.in(0);
  int64_t size = c.attr_int("size", 1);
  double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75), bias = c.attr_float("bias", 1.0);
  std::vector<std::pair<int64_t, int64_t>> pads(x.ndim(), {0, 0});
  pads[1] = {(size - 1) / 2, size / 2};
  Tensor sq = (x * x).pad(pads);
  int64_t ch = x.shape()[1];
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (int64_t d : sq.shape()) bounds.push_back({0, d});
  Tensor sum = x.zeros_like();
  for (int64_t j = 0; j < size; ++j) {
    bounds[1] = {j, j + ch};
    sum = sum + sq.shrink(bounds);
  }
  return x / (sum * (alpha / size) + bias).pow(beta);
}

std::vector<Tensor> Dropout(Ctx& c) {
  const Tensor& x = c.in(0);
  double ratio = c.opset() >= 12 ? (c.has(1) ? c.floats(1).at(0) : 0.5) : c.attr_float("ratio", 0.5);
  bool training = c.opset() >= 12 && c.has(2) && c.ints(2).at(0) != 0;
  if (!training || ratio == 0.0) return {x, Tensor::full(x.shape(), true, dtypes::bool_, x.device())};
  Tensor mask = x.rand_like(dtypes::float32) >= ratio;
  return {x * mask.cast(x.dtype()) / (1.0 - ratio), mask};
}

std::vector<Tensor> Losses(Ctx& c, bool softmax) {
  Tensor scores = softmax ? c.in(0).log_softmax(1) : c.in(0);
  std::optional<int64_t> ignore;
  if (c.has_attr("ignore_index")) ignore = c.attr_int("ignore_index", -100);
  std::string reduction = c.attr_string("reduction", "mean");
  Tensor loss = scores.nll_loss(c.in(1), c.opt(2), ignore, reduction).cast(c.in(0).dtype());
  if (softmax) return {loss, scores};
  return One(loss);
}

}  // namespace

void RegisterNnOps(OpRegistry& r) {
  r.add("Conv", [](Ctx& c) { return One(Conv(c, c.in(0), c.in(1), c.opt(2))); });
  r.add("ConvInteger", [](Ctx& c) {  // int32 convolution of the zero-point-centered operands
    Tensor x = c.in(0).cast(dtypes::int32), w = c.in(1).cast(dtypes::int32);
    if (c.has(2)) x = x - c.in(2).cast(dtypes::int32);
    if (c.has(3)) w = w - c.in(3).cast(dtypes::int32);
    return One(Conv(c, x, w, std::nullopt).cast(dtypes::int32));
  });
  r.add("ConvTranspose", [](Ctx& c) { return One(ConvTranspose(c)); });
  r.add("MaxPool", [](Ctx& c) { return Pool(c, true); });
  r.add("AveragePool", [](Ctx& c) { return Pool(c, false); });
  r.add("GlobalAveragePool", [](Ctx& c) {
    const Tensor& x = c.in(0);
    std::vector<int> axes;
    for (int i = 2; i < x.ndim(); ++i) axes.push_back(i);
    return One(x.mean(axes, true));
  });
  r.add("GlobalMaxPool", [](Ctx& c) {
    const Tensor& x = c.in(0);
    std::vector<int> axes;
    for (int i = 2; i < x.ndim(); ++i) axes.push_back(i);
    return One(x.max(axes, true));
  });
  r.add("Gemm", [](Ctx& c) { return One(Gemm(c)); });
  r.add("MatMul", [](Ctx& c) { return One(c.in(0).matmul(c.in(1))); });
  r.add("Einsum", [](Ctx& c) { return One(Tensor::einsum(c.attr_string("equation", ""), c.all_inputs())); });
  r.add("BatchNormalization", BatchNorm);
  r.add("LayerNormalization", LayerNorm);
  r.add("InstanceNormalization", [](Ctx& c) { return One(GroupNorm(c, c.in(0).shape()[1])); });
  r.add("GroupNormalization", [](Ctx& c) { return One(GroupNorm(c, c.attr_int("num_groups", 1))); });
  r.add("LpNormalization", [](Ctx& c) {
    const Tensor& x = c.in(0);
    int axis = NormAxis(c.attr_int("axis", -1), x.ndim(), c);
    Tensor norm = c.attr_int("p", 2) == 1 ? x.abs().sum({axis}, true) : x.square().sum({axis}, true).sqrt();
    return One(x / norm);
  });
  r.add("MeanVarianceNormalization", [](Ctx& c) {
    const Tensor& x = c.in(0);
    Ints a = c.attr_ints("axes").value_or(Ints{0, 2, 3});
    std::vector<int> axes;
    for (int64_t v : a) axes.push_back(NormAxis(v, x.ndim(), c));
    Tensor centered = x - x.mean(axes, true);
    return One(centered / (centered.square().mean(axes, true).sqrt() + 1e-9));
  });
  r.add("LRN", [](Ctx& c) { return One(Lrn(c)); });
  r.add("Dropout", Dropout);
  r.add("NegativeLogLikelihoodLoss", [](Ctx& c) { return Losses(c, false); });
  r.add("SoftmaxCrossEntropyLoss", [](Ctx& c) { return Losses(c, true); });
}

}  // namespace tg::onnx
