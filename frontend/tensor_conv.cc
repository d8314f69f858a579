// Convolutions as tinygrad writes them: sliding windows from Pool (movement ops only), multiplied by
// the weight and reduced, so the compiler sees one fused reduce and autograd needs no conv rule.
// conv_transpose2d is a conv2d over the stride-dilated input with the flipped, regrouped weight.
#include <algorithm>

#include "frontend/op_util.h"
#include "frontend/shape_util.h"

namespace tg {

Tensor Tensor::conv2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups,
                      const IntOrTuple& stride, const IntOrTuple& dilation, const IntOrTuple& padding) const {
  if (ndim() < 3 || weight.ndim() != ndim())
    throw Error("conv2d: input " + ShapeString(shape()) + " and weight " + ShapeString(weight.shape()) +
                " need the same rank >= 3: (batch, channels, *spatial) and (out, in/groups, *kernel)");
  int64_t bs = shape()[0], cin_all = shape()[1], cout = weight.shape()[0], cin = weight.shape()[1];
  if (groups < 1 || groups * cin != cin_all || cout % groups != 0)
    throw Error("conv2d: input " + ShapeString(shape()) + " has " + std::to_string(cin_all) + " channels but weight " +
                ShapeString(weight.shape()) + " with groups=" + std::to_string(groups) + " expects " +
                std::to_string(groups * cin) + " (and out channels divisible by groups)");
  size_t n = static_cast<size_t>(ndim() - 2);
  Shape hw(weight.shape().begin() + 2, weight.shape().end());
  Pads pads = PoolPads(padding, n, "conv2d");
  pads.insert(pads.begin(), 2, {0, 0});
  Tensor x = Pool(pad(pads), hw, PerAxis(stride, n, "conv2d", "stride"), PerAxis(dilation, n, "conv2d", "dilation"),
                  "conv2d");
  Shape oyx(x.shape().begin() + 2, x.shape().begin() + 2 + n);
  int64_t rcout = cout / groups;
  // (bs, groups, cin, rcout, *oyx, *hw) -> (bs, groups, rcout, *oyx, cin, *hw)
  Shape grouped = {bs, groups, cin, 1}, expanded = {bs, groups, cin, rcout};
  grouped.insert(grouped.end(), oyx.begin(), oyx.end()), grouped.insert(grouped.end(), hw.begin(), hw.end());
  expanded.insert(expanded.end(), oyx.begin(), oyx.end()), expanded.insert(expanded.end(), hw.begin(), hw.end());
  std::vector<int> perm = {0, 1, 3};
  for (size_t i = 0; i < n; ++i) perm.push_back(static_cast<int>(4 + i));
  perm.push_back(2);
  for (size_t i = 0; i < n; ++i) perm.push_back(static_cast<int>(4 + n + i));
  x = x.reshape(grouped).expand(expanded).permute(perm);
  Shape ws = {1, groups, rcout};
  ws.insert(ws.end(), n, 1), ws.push_back(cin), ws.insert(ws.end(), hw.begin(), hw.end());
  std::vector<int> axes;
  for (size_t i = 0; i <= n; ++i) axes.push_back(-1 - static_cast<int>(i));
  Shape out = {bs, cout};
  out.insert(out.end(), oyx.begin(), oyx.end());
  Tensor ret = (x * weight.reshape(ws)).sum(axes, true).reshape(out);
  if (!bias) return ret;
  if (bias->ndim() != 1 || bias->shape()[0] != cout)
    throw Error("conv2d: bias " + ShapeString(bias->shape()) + " must be (" + std::to_string(cout) + ")");
  Shape bshape = {1, cout};
  bshape.insert(bshape.end(), n, 1);
  return ret + bias->reshape(bshape);
}

Tensor Tensor::conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups,
                                const IntOrTuple& stride, const IntOrTuple& dilation, const IntOrTuple& padding,
                                const IntOrTuple& output_padding) const {
  if (ndim() < 3 || weight.ndim() != ndim() || groups < 1 || weight.shape()[0] != shape()[1] ||
      weight.shape()[0] % groups != 0)
    throw Error("conv_transpose2d: input " + ShapeString(shape()) + " and weight " + ShapeString(weight.shape()) +
                " with groups=" + std::to_string(groups) + " do not fit: weight is (in, out/groups, *kernel) with in = " +
                "the input's channels, divisible by groups");
  size_t n = static_cast<size_t>(ndim() - 2);
  Shape hw(weight.shape().begin() + 2, weight.shape().end());
  std::vector<int64_t> s = PerAxis(stride, n, "conv_transpose2d", "stride");
  std::vector<int64_t> d = PerAxis(dilation, n, "conv_transpose2d", "dilation");
  std::vector<int64_t> op = PerAxis(output_padding, n, "conv_transpose2d", "output_padding");
  Pads p = PoolPads(padding, n, "conv_transpose2d");
  // (in, out/g, *k) -> (g, out/g, in/g, *k), spatially flipped -> (out, in/g, *k)
  std::vector<int> flips;
  for (size_t i = 0; i < n; ++i) flips.push_back(static_cast<int>(3 + i));
  Tensor w = weight.unflatten(0, {groups, -1}).transpose(1, 2).flip(flips).flatten(0, 1);
  Tensor x = *this;
  if (std::any_of(s.begin(), s.end(), [](int64_t v) { return v > 1; })) {
    // Each input element followed by (stride-1) zeros, the trailing zeros cut: (k) -> (k*s - (s-1)).
    Shape spread = {x.shape()[0], x.shape()[1]}, merged = spread;
    Pads zeros = {{0, 0}, {0, 0}}, cut = {{0, x.shape()[0]}, {0, x.shape()[1]}};
    for (size_t i = 0; i < n; ++i) {
      int64_t k = x.shape()[2 + i];
      spread.insert(spread.end(), {k, 1});
      zeros.insert(zeros.end(), {{0, 0}, {0, s[i] - 1}});
      merged.push_back(k * s[i]);
      cut.emplace_back(0, k * s[i] - (s[i] - 1));
    }
    x = x.reshape(spread).pad(zeros).reshape(merged).shrink(cut);
  }
  std::vector<int64_t> flat;  // PyTorch's flat padding order: last spatial axis first
  for (size_t i = n; i-- > 0;) {
    flat.push_back((hw[i] - 1) * d[i] - p[i].first);
    flat.push_back((hw[i] - 1) * d[i] - p[i].second + op[i]);
  }
  return x.conv2d(w, bias, groups, 1, d, flat);
}

}  // namespace tg
