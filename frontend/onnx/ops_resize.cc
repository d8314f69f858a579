// Resize and Upsample. Sampling positions depend only on shapes, so each resized axis is computed on
// the host as "taps": for every output position up to 4 (source index, weight) pairs; the tensor side
// is then a few gathers and a weighted sum per axis, which fuse. Out-of-range positions of
// tf_crop_and_resize take extrapolation_value through a host-computed mask.
#include <cmath>
#include <limits>

#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

struct Taps {
  std::vector<std::vector<int32_t>> index;  // [tap][output position]
  std::vector<std::vector<float>> weight;
  std::vector<bool> valid;  // false: extrapolation_value
};

struct Options {
  std::string mode, coord, nearest;
  double cubic_a;
  bool exclude_outside;
  double roi_start = 0, roi_end = 1;
};

double SourceCoord(const Options& o, int64_t out_i, int64_t in, int64_t out, double scale) {
  double i = static_cast<double>(out_i);
  if (o.coord == "half_pixel") return (i + 0.5) / scale - 0.5;
  if (o.coord == "pytorch_half_pixel") return out > 1 ? (i + 0.5) / scale - 0.5 : 0.0;
  // ONNX's reference divides by in * scale, not the floored output length, when scales are given.
  if (o.coord == "align_corners") return in * scale > 1 ? i * (in - 1) / (in * scale - 1) : 0.0;
  if (o.coord == "asymmetric") return i / scale;
  if (o.coord == "half_pixel_symmetric") {
    double adj = out / (scale * in), center = in / 2.0;
    return center * (1 - adj) + (i + 0.5) / scale - 0.5;
  }
  if (o.coord == "tf_crop_and_resize")
    return out > 1 ? o.roi_start * (in - 1) + i * (o.roi_end - o.roi_start) * (in - 1) / (out - 1)
                   : 0.5 * (o.roi_start + o.roi_end) * (in - 1);
  throw Error("coordinate_transformation_mode \"" + o.coord +
              "\" is not one of half_pixel, pytorch_half_pixel, align_corners, asymmetric, half_pixel_symmetric, "
              "tf_crop_and_resize");
}

int64_t Nearest(const Options& o, double x) {
  if (o.nearest == "round_prefer_floor") return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::floor(x)) : std::llround(x);
  if (o.nearest == "round_prefer_ceil") return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::ceil(x)) : std::llround(x);
  if (o.nearest == "floor") return static_cast<int64_t>(std::floor(x));
  if (o.nearest == "ceil") return static_cast<int64_t>(std::ceil(x));
  throw Error("nearest_mode \"" + o.nearest + "\" is not one of round_prefer_floor, round_prefer_ceil, floor, ceil");
}

double Cubic(double a, double d) {  // Keys' cubic convolution kernel at distance |d|
  d = std::abs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

Taps AxisTaps(const Options& o, int64_t in, int64_t out, double scale) {
  int ntaps = o.mode == "nearest" ? 1 : o.mode == "linear" ? 2 : 4;
  Taps t{std::vector<std::vector<int32_t>>(ntaps, std::vector<int32_t>(out)),
         std::vector<std::vector<float>>(ntaps, std::vector<float>(out)), std::vector<bool>(out, true)};
  auto clampi = [in](int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, 0, in - 1)); };
  for (int64_t i = 0; i < out; ++i) {
    double x = SourceCoord(o, i, in, out, scale);
    if (o.coord == "tf_crop_and_resize" && (x < 0 || x > in - 1)) t.valid[i] = false;
    if (o.mode == "nearest") {
      t.index[0][i] = clampi(Nearest(o, x));
      t.weight[0][i] = 1;
    } else if (o.mode == "linear") {
      x = std::clamp(x, 0.0, static_cast<double>(in - 1));
      int64_t lo = static_cast<int64_t>(std::floor(x));
      t.index[0][i] = clampi(lo);
      t.index[1][i] = clampi(lo + 1);
      t.weight[1][i] = static_cast<float>(x - lo);
      t.weight[0][i] = static_cast<float>(1 - (x - lo));
    } else {
      int64_t p = static_cast<int64_t>(std::floor(x));
      double frac = x - p, total = 0;
      for (int k = 0; k < 4; ++k) {
        int64_t src = p - 1 + k;
        double w = Cubic(o.cubic_a, frac + 1 - k);
        if (o.exclude_outside && (src < 0 || src >= in)) w = 0;
        t.index[k][i] = clampi(src);
        t.weight[k][i] = static_cast<float>(w);
        total += w;
      }
      if (o.exclude_outside)
        for (int k = 0; k < 4; ++k) t.weight[k][i] = static_cast<float>(t.weight[k][i] / total);
    }
  }
  return t;
}

Tensor ResizeAxis(const Tensor& x, int axis, const Taps& t, double extrapolation) {
  int64_t out = static_cast<int64_t>(t.valid.size());
  Shape full = x.shape(), column(x.ndim(), 1);
  full[axis] = column[axis] = out;
  std::optional<Tensor> acc;
  for (size_t k = 0; k < t.index.size(); ++k) {
    Tensor idx = Tensor::from_vector<int32_t>(t.index[k], column, x.device()).expand(full);
    Tensor v = x.gather(axis, idx);
    if (t.index.size() > 1) v = v * Tensor::from_vector<float>(t.weight[k], column, x.device());
    acc = acc ? *acc + v : v;
  }
  if (std::find(t.valid.begin(), t.valid.end(), false) != t.valid.end()) {
    std::vector<bool> valid(t.valid.begin(), t.valid.end());
    acc = Tensor::from_vector<bool>(valid, column, x.device()).where(*acc, Scalar(extrapolation));
  }
  return *acc;
}

// floor(v) as an axis length, saturated: a hostile scale must give a huge length the budget refuses,
// not an out-of-range conversion.
int64_t FlooredLength(double v) {
  if (!(v < 0x1p63)) return std::numeric_limits<int64_t>::max();  // also NaN
  return static_cast<int64_t>(std::floor(v));
}

Tensor Resize(Ctx& c, bool upsample) {
  Tensor x = c.in(0);
  if (c.attr_int("antialias", 0)) c.fail("antialias=1 is not supported");
  Options o{c.attr_string("mode", "nearest"),
            c.attr_string("coordinate_transformation_mode", c.opset() < 11 || upsample ? "asymmetric" : "half_pixel"),
            c.attr_string("nearest_mode", c.opset() < 11 || upsample ? "floor" : "round_prefer_floor"),
            c.attr_float("cubic_coeff_a", -0.75), c.attr_int("exclude_outside", 0) != 0};
  if (o.mode == "bilinear" || o.mode == "trilinear") o.mode = "linear";
  if (o.mode != "nearest" && o.mode != "linear" && o.mode != "cubic") c.fail("mode \"" + o.mode + "\" is not one of nearest, linear, cubic");
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  if (upsample) scales = c.opset() < 9 ? c.attr_floats("scales").value_or(scales) : c.floats(1);
  else if (c.opset() < 11) scales = c.floats(1);
  else {
    if (c.has(1)) roi = c.floats(1);
    if (c.has(2)) scales = c.floats(2);
    if (c.has(3)) sizes = c.ints(3);
  }
  std::vector<int64_t> axes = c.attr_ints("axes").value_or(std::vector<int64_t>{});
  size_t n = !sizes.empty() ? sizes.size() : scales.size();
  if (n == 0) c.fail("one of scales or sizes must be given");
  if (axes.empty()) for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  if (axes.size() != n) c.fail("axes has " + std::to_string(axes.size()) + " entries, scales/sizes " + std::to_string(n));
  std::vector<int64_t> out(n);
  std::vector<double> scale(n);
  std::string policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
  if (!sizes.empty() && policy != "stretch") {
    double s = policy == "not_larger" ? 1e300 : 0;
    for (size_t i = 0; i < n; ++i) {
      double r = static_cast<double>(sizes[i]) / x.shape()[NormAxis(axes[i], x.ndim(), c)];
      s = policy == "not_larger" ? std::min(s, r) : std::max(s, r);
    }
    for (size_t i = 0; i < n; ++i) {
      scale[i] = s;
      out[i] = FlooredLength(s * x.shape()[NormAxis(axes[i], x.ndim(), c)] + 0.5);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = x.shape()[NormAxis(axes[i], x.ndim(), c)];
      out[i] = sizes.empty() ? FlooredLength(in * scales[i]) : sizes[i];
      scale[i] = sizes.empty() ? scales[i] : static_cast<double>(sizes[i]) / in;
    }
  }
  // The taps of each resized axis are host vectors as long as the axis: check before building them.
  Shape resized = x.shape();
  for (size_t i = 0; i < n; ++i) resized[NormAxis(axes[i], x.ndim(), c)] = out[i];
  c.check_output_budget("scales/sizes", resized, x.dtype());
  DType original = x.dtype();
  if (!x.dtype().is_float() && o.mode != "nearest") x = x.cast(dtypes::float32);
  for (size_t i = 0; i < n; ++i) {
    int axis = NormAxis(axes[i], x.ndim(), c);
    int64_t in = x.shape()[axis];
    if (o.coord == "tf_crop_and_resize") {
      size_t r = roi.size() / 2;
      size_t slot = roi.size() == 2 * n ? i : static_cast<size_t>(axis);
      if (slot >= r) c.fail("roi needs 2 entries per resized axis for tf_crop_and_resize");
      o.roi_start = roi[slot];
      o.roi_end = roi[slot + r];
    } else if (out[i] == in && scale[i] == 1.0) {
      continue;
    }
    x = ResizeAxis(x, axis, AxisTaps(o, in, out[i], scale[i]), c.attr_float("extrapolation_value", 0.0));
  }
  if (x.dtype() != original) x = (original.is_float() ? x : x.round()).cast(original);
  return x;
}

}  // namespace

void RegisterResizeOps(OpRegistry& r) {
  r.add("Resize", [](Ctx& c) { return One(Resize(c, false)); });
  r.add("Upsample", [](Ctx& c) { return One(Resize(c, true)); });
}

}  // namespace tg::onnx
