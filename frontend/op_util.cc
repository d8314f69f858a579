#include "frontend/op_util.h"

#include "frontend/shape_util.h"

namespace tg {

Tensor ConstTensor(ConstValue value, DType dtype, const Shape& shape, const std::string& device) {
  UOpRef c = UOp::Const(dtype, value);
  if (!shape.empty()) c = c->reshape(Shape(shape.size(), 1))->expand(shape);
  return Tensor(c, device);
}

Tensor ValueOf(const Tensor& t, ConstValue value) { return ConstTensor(value, t.dtype(), {}, t.device()); }

namespace {
ConstValue Extreme(DType d, bool max) {
  if (d.is_float()) return max ? DTypeMaxDouble(d) : DTypeMinDouble(d);
  if (d.is_bool()) return max;
  return max ? DTypeMaxInt(d) : DTypeMinInt(d);
}
}  // namespace

Tensor DTypeMinLike(const Tensor& t) { return ValueOf(t, Extreme(t.dtype(), false)); }
Tensor DTypeMaxLike(const Tensor& t) { return ValueOf(t, Extreme(t.dtype(), true)); }

Tensor PadWith(const Tensor& t, const Pads& pads, ConstValue value) {
  Tensor padded = t.pad(pads);
  if (ConstToDouble(value) == 0) return padded;
  // Where the pad put its zeros, a mask padded the same way (false there) selects |value|.
  Tensor inside = ConstTensor(true, dtypes::bool_, t.shape(), t.device()).pad(pads);
  return inside.where(padded, ConstTensor(value, t.dtype(), padded.shape(), t.device()));
}

Tensor AxisArange(int64_t n, int64_t axis, int64_t rank, const std::string& device) {
  Shape shape(rank, 1);
  shape[axis] = n;
  return Tensor::arange(0, n, 1, device).reshape(shape);
}

Tensor OneHotAlongDim(const Tensor& idx, int64_t n, int dim, const char* op) {
  if (!idx.dtype().is_int())
    throw Error(std::string(op) + ": index tensors must have an integer dtype, got " + idx.dtype().name());
  int64_t axis = NormalizeAxis(dim, idx.ndim(), op);
  return idx.eq(AxisArange(n, axis, idx.ndim(), idx.device()));
}

Tensor SumKeepDType(const Tensor& t, const std::vector<int>& axes, bool keepdim) {
  if (t.dtype().is_bool()) return t.max(axes, keepdim);
  return t.sum(axes, keepdim).cast(t.dtype());
}

std::vector<int64_t> PerAxis(const IntOrTuple& arg, size_t n, const char* op, const char* what) {
  if (arg.values.size() == 1) return std::vector<int64_t>(n, arg.values[0]);
  if (arg.values.size() != n)
    throw Error(std::string(op) + ": " + what + " has " + std::to_string(arg.values.size()) +
                " values; give one, or one per spatial axis (" + std::to_string(n) + ")");
  return arg.values;
}

Pads PoolPads(const IntOrTuple& padding, size_t n, const char* op) {
  const std::vector<int64_t>& p = padding.values;
  Pads out(n);
  if (p.size() == 1 || p.size() == n) {
    for (size_t i = 0; i < n; ++i) out[i] = {p[p.size() == 1 ? 0 : i], p[p.size() == 1 ? 0 : i]};
  } else if (p.size() == 2 * n) {  // PyTorch's flat order starts at the last axis
    for (size_t i = 0; i < n; ++i) out[n - 1 - i] = {p[2 * i], p[2 * i + 1]};
  } else {
    throw Error(std::string(op) + ": padding has " + std::to_string(p.size()) + " values; give 1, " +
                std::to_string(n) + " (one per spatial axis) or " + std::to_string(2 * n) + " (before/after each)");
  }
  return out;
}

namespace {
Tensor ShrinkTo(const Tensor& x, const Shape& shape) {
  Pads bounds;
  for (int64_t s : shape) bounds.emplace_back(0, s);
  return x.shrink(bounds);
}
}  // namespace

Tensor Pool(const Tensor& x, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
            const std::vector<int64_t>& d, const char* op) {
  size_t n = k.size();
  if (n > static_cast<size_t>(x.ndim()))
    throw Error(std::string(op) + ": a " + std::to_string(n) + "-D window needs at least " + std::to_string(n) +
                " axes; got shape " + ShapeString(x.shape()));
  size_t noop = x.ndim() - n;
  Shape lead(x.shape().begin(), x.shape().begin() + noop), rep(noop, 1), full = lead, win = lead, grid = lead,
      strided = lead, picked = lead, out = lead;
  std::vector<int64_t> o(n);
  for (size_t a = 0; a < n; ++a) {
    int64_t i = x.shape()[noop + a];
    if (k[a] < 1 || s[a] < 1 || d[a] < 1)
      throw Error(std::string(op) + ": kernel, stride and dilation must be >= 1, got " + std::to_string(k[a]) + ", " +
                  std::to_string(s[a]) + ", " + std::to_string(d[a]));
    if (d[a] * (k[a] - 1) + 1 > i)
      throw Error(std::string(op) + ": the (dilated) kernel " + std::to_string(d[a] * (k[a] - 1) + 1) +
                  " is larger than the (padded) input " + std::to_string(i) + " on spatial axis " + std::to_string(a));
    o[a] = CeilDiv(i - d[a] * (k[a] - 1), s[a]);
    // Repeating the axis k times and reading it with row length i*f+d shifts each kernel tap by d.
    int64_t f = std::max<int64_t>(1, CeilDiv(o[a] * s[a] - d[a], i)), row = i * f + d[a];
    rep.push_back(CeilDiv(k[a] * row, i));
    full.push_back(k[a] * row);
    win.insert(win.end(), {k[a], row});
    grid.insert(grid.end(), {k[a], o[a] * s[a]});
    strided.insert(strided.end(), {k[a], o[a], s[a]});
    picked.insert(picked.end(), {k[a], o[a], 1});
    out.insert(out.end(), {k[a], o[a]});
  }
  Tensor y = ShrinkTo(x.repeat(rep), full).reshape(win);
  y = ShrinkTo(y, grid).reshape(strided);
  y = ShrinkTo(y, picked).reshape(out);
  std::vector<int> perm;
  for (size_t i = 0; i < noop; ++i) perm.push_back(static_cast<int>(i));
  for (size_t a = 0; a < n; ++a) perm.push_back(static_cast<int>(noop + 2 * a + 1));
  for (size_t a = 0; a < n; ++a) perm.push_back(static_cast<int>(noop + 2 * a));
  return y.permute(perm);
}

}  // namespace tg
