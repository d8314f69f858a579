// Pooling and resampling over the trailing spatial axes: avg/max pooling as reductions over the
// windows of Pool (tinygrad's formulation, any number of spatial axes), and interpolate as gathers
// whose indices and weights are static, so they are computed on the host.
#include <algorithm>
#include <cmath>

#include "frontend/op_util.h"
#include "frontend/shape_util.h"

namespace tg {
namespace {

struct PoolArgs {
  std::vector<int64_t> k, s, d;
  Pads pads;  // per spatial axis, before ceil_mode
  std::vector<int> axes;  // the window axes of Pool's output: -n..-1
};

PoolArgs ResolvePool(const Tensor& x, const IntOrTuple& kernel, const IntOrTuple& stride, const IntOrTuple& dilation,
                     const IntOrTuple& padding, const char* op) {
  PoolArgs a;
  a.k = kernel.scalar ? std::vector<int64_t>(2, kernel.values[0]) : kernel.values;  // tinygrad's make_tuple(k, 2)
  size_t n = a.k.size();
  if (n == 0 || n > static_cast<size_t>(x.ndim()))
    throw Error(std::string(op) + ": a " + std::to_string(n) + "-D kernel does not fit the input " +
                ShapeString(x.shape()));
  a.s = stride.values.empty() ? a.k : PerAxis(stride, n, op, "stride");
  a.d = PerAxis(dilation, n, op, "dilation");
  a.pads = PoolPads(padding, n, op);
  for (int i = static_cast<int>(n); i >= 1; --i) a.axes.push_back(-i);
  return a;
}

// tinygrad's _apply_ceil_mode: extra padding after, so a last partial window exists, but never a
// window that starts inside the padding.
Pads CeilModePads(const Tensor& x, const PoolArgs& a) {
  Pads out = a.pads;
  size_t n = a.k.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.shape()[x.ndim() - n + i], k = a.k[i], s = a.s[i], d = a.d[i];
    auto [pb, pa] = a.pads[i];
    int64_t o = CeilDiv(in + pb + pa - (d * (k - 1) + 1), s) + 1;
    out[i].second = pa + s * (o - 1) + (d * (k - 1) + 1) - (in + pb + pa) - std::max<int64_t>(s * (o - 1) - (pb + in - 1), 0);
  }
  return out;
}

Pads Lead(const Tensor& x, const Pads& spatial) {
  Pads p(x.ndim() - spatial.size(), {0, 0});
  p.insert(p.end(), spatial.begin(), spatial.end());
  return p;
}

Tensor Windows(const Tensor& x, const Pads& pads, ConstValue fill, const PoolArgs& a, const char* op) {
  return Pool(PadWith(x, Lead(x, pads), fill), a.k, a.s, a.d, op);
}

}  // namespace

Tensor Tensor::avg_pool2d(const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& dilation,
                          const IntOrTuple& padding, bool ceil_mode, bool count_include_pad) const {
  PoolArgs a = ResolvePool(*this, kernel_size, stride, dilation, padding, "avg_pool2d");
  Pads pads = ceil_mode ? CeilModePads(*this, a) : a.pads;
  Tensor windows = Windows(*this, pads, 0, a, "avg_pool2d");
  if (count_include_pad && !ceil_mode) return windows.mean(a.axes);
  // The divisor counts real elements, plus the user's padding when count_include_pad, but never the
  // extra padding ceil_mode adds.
  Tensor ones = Tensor::full(shape(), 1, dtype(), device());
  Pads extra = pads;
  if (count_include_pad) {
    ones = Tensor::full(pad(Lead(*this, a.pads)).shape(), 1, dtype(), device());  // padding counts as elements
    for (size_t i = 0; i < pads.size(); ++i) extra[i] = {0, pads[i].second - a.pads[i].second};
  }
  return windows.sum(a.axes) / Windows(ones, extra, 0, a, "avg_pool2d").sum(a.axes);
}

Tensor Tensor::max_pool2d(const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& dilation,
                          const IntOrTuple& padding, bool ceil_mode) const {
  PoolArgs a = ResolvePool(*this, kernel_size, stride, dilation, padding, "max_pool2d");
  Pads pads = ceil_mode ? CeilModePads(*this, a) : a.pads;
  Tensor lowest = DTypeMinLike(*this);
  return Windows(*this, pads, lowest.uop()->const_value(), a, "max_pool2d").max(a.axes);
}

// Indices: each window position holds (plane size - flat index), masked to where the max is; the
// largest such value is the first max, which is the index PyTorch returns.
std::pair<Tensor, Tensor> Tensor::max_pool2d_with_indices(const IntOrTuple& kernel_size, const IntOrTuple& stride,
                                                          const IntOrTuple& dilation, const IntOrTuple& padding,
                                                          bool ceil_mode) const {
  PoolArgs a = ResolvePool(*this, kernel_size, stride, dilation, padding, "max_pool2d");
  Pads pads = ceil_mode ? CeilModePads(*this, a) : a.pads;
  Tensor pooled = Windows(*this, pads, DTypeMinLike(*this).uop()->const_value(), a, "max_pool2d");
  Shape spatial(shape().end() - a.k.size(), shape().end());
  int64_t plane = Numel(spatial);
  Tensor rev = Tensor::arange(plane, 0, -1, device()).reshape(spatial);
  Tensor rev_windows = Windows(rev, pads, DTypeMinInt(rev.dtype()), a, "max_pool2d");
  Tensor best = pooled.eq(pooled.max(a.axes, true)).where(rev_windows, 0).max(a.axes);
  return {pooled.max(a.axes), Tensor::full(best.shape(), plane, dtypes::int32, device()) - best};
}

Tensor Tensor::interpolate(const Shape& size, std::string_view mode, bool align_corners) const {
  if (size.empty() || static_cast<int64_t>(size.size()) > ndim())
    throw Error("interpolate: size " + ShapeString(size) + " must name 1 to " + std::to_string(ndim()) +
                " trailing axes of " + ShapeString(shape()));
  if (mode != "linear" && mode != "nearest" && mode != "nearest-exact")
    throw Error("interpolate: mode must be linear, nearest or nearest-exact, got \"" + std::string(mode) + "\"");
  if (align_corners && mode != "linear") throw Error("interpolate: align_corners needs mode \"linear\"");
  Tensor x = dtype().is_float() ? *this : cast(dtypes::default_float);
  for (int64_t j = 1; j <= static_cast<int64_t>(size.size()); ++j) {
    int64_t axis = ndim() - j, in = shape()[axis], out = size[size.size() - j];
    if (out < 0) throw Error("interpolate: negative size " + std::to_string(out));
    Shape expanded = x.shape(), column(ndim(), 1);
    expanded[axis] = column[axis] = out;
    auto idx = [&](const std::vector<int32_t>& v) { return Tensor::from_vector(v, column, device()).expand(expanded); };
    std::vector<int32_t> lo(out), hi(out);
    std::vector<float> frac(out);
    for (int64_t o = 0; o < out; ++o) {
      if (mode == "linear") {  // tinygrad's integer form of the source coordinate, clamped to the input
        int64_t num = align_corners ? o * (in - 1) : (2 * o + 1) * in - out;
        int64_t den = align_corners ? std::max<int64_t>(out - 1, 1) : 2 * out;
        num = std::clamp<int64_t>(num, 0, (in - 1) * den);
        lo[o] = static_cast<int32_t>(num / den), hi[o] = static_cast<int32_t>((num + den - 1) / den);
        frac[o] = static_cast<float>(num % den) / static_cast<float>(den);
      } else {
        double scale = static_cast<double>(in) / out;
        lo[o] = static_cast<int32_t>(mode == "nearest-exact" ? scale * (o + 0.5) : scale * o);
      }
    }
    if (mode != "linear") {
      x = x.gather(static_cast<int>(axis), idx(lo));
      continue;
    }
    Tensor a = x.gather(static_cast<int>(axis), idx(lo)), b = x.gather(static_cast<int>(axis), idx(hi));
    x = a + (b - a) * Tensor::from_vector(frac, column, device()).cast(x.dtype());
  }
  return x.cast(dtype());
}

}  // namespace tg
