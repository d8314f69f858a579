// Reducing ONNX ops: Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax (with their pre-13 "flatten to
// 2-D" semantics), CumSum. Axes moved from attribute to input at opset 13 (ReduceSum) / 18 (the rest).
#include <numeric>

#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

// The axes to reduce, or nullopt for "leave the tensor as it is" (noop_with_empty_axes).
std::optional<std::vector<int>> ReduceAxes(Ctx& c, int64_t axes_input_since) {
  const Tensor& x = c.in(0);
  std::vector<int64_t> axes;
  if (c.opset() >= axes_input_since) {
    if (c.has(1)) axes = c.ints(1);
  } else if (auto a = c.attr_ints("axes")) {
    axes = *a;
  }
  if (axes.empty()) {
    if (c.attr_int("noop_with_empty_axes", 0)) return std::nullopt;
    axes.resize(x.ndim());
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<int> out;
  for (int64_t a : axes) out.push_back(NormAxis(a, x.ndim(), c));
  return out;
}

template <class F>
std::vector<Tensor> Reduce(Ctx& c, int64_t axes_input_since, F f) {
  const Tensor& x = c.in(0);
  auto axes = ReduceAxes(c, axes_input_since);
  if (!axes) return One(x);
  bool keep = c.attr_int("keepdims", 1) != 0;
  Tensor out = f(x, *axes, keep);
  return One(out.dtype() == x.dtype() ? out : out.cast(x.dtype()));
}

#define REDUCE(NAME, SINCE, EXPR)                                                                             \
  r.add(NAME, [](Ctx& c) {                                                                                    \
    return Reduce(c, SINCE, [](const Tensor& x, const std::vector<int>& ax, bool keep) { return EXPR; }); \
  })

Tensor ArgMax(Ctx& c, bool min) {
  Tensor x = c.in(0);
  if (min) x = x.dtype().is_unsigned() || x.dtype().is_bool() ? x.cast(dtypes::int64).neg() : x.neg();
  int axis = NormDimAxis(c.attr_int("axis", 0), x, c);
  bool keep = c.attr_int("keepdims", 1) != 0;
  if (c.attr_int("select_last_index", 0)) {
    Tensor idx = x.flip({axis}).argmax(axis, keep).cast(dtypes::int64);
    return (idx.neg() + (x.shape()[axis] - 1)).cast(dtypes::int64);
  }
  return x.argmax(axis, keep).cast(dtypes::int64);
}

// Before opset 13, Softmax-like ops flattened the input to 2-D at |axis| and worked on the second axis.
template <class F>
std::vector<Tensor> SoftmaxLike(Ctx& c, F f) {
  const Tensor& x = c.in(0);
  if (c.opset() >= 13) return One(f(x, NormAxis(c.attr_int("axis", -1), x.ndim(), c)));
  int axis = NormAxis(c.attr_int("axis", 1), x.ndim(), c);
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= x.shape()[i];
  return One(f(x.reshape({outer, -1}), 1).reshape(x.shape()));
}

Tensor Hardmax(const Tensor& x, int axis) {
  Shape idx_shape(x.ndim(), 1);
  idx_shape[axis] = x.shape()[axis];
  Tensor positions = Tensor::arange(0, x.shape()[axis], 1, dtypes::int32, x.device()).reshape(idx_shape);
  return x.argmax(axis, true).cast(dtypes::int32).eq(positions).cast(x.dtype());
}

Tensor CumSum(Ctx& c) {
  Tensor x = c.in(0);
  int axis = NormAxis(c.ints(1).at(0), x.ndim(), c);
  bool reverse = c.attr_int("reverse", 0) != 0;
  if (reverse) x = x.flip({axis});
  if (c.attr_int("exclusive", 0)) {  // shift right by one along |axis|: a leading 0, the last value dropped
    std::vector<std::pair<int64_t, int64_t>> pad(x.ndim(), {0, 0});
    pad[axis] = {1, -1};
    x = x.pad(pad);
  }
  Tensor out = x.cumsum(axis);
  if (out.dtype() != c.in(0).dtype()) out = out.cast(c.in(0).dtype());
  return reverse ? out.flip({axis}) : out;
}

}  // namespace

void RegisterReduceOps(OpRegistry& r) {
  REDUCE("ReduceSum", 13, x.sum(ax, keep));
  REDUCE("ReduceMax", 18, x.max(ax, keep));
  REDUCE("ReduceMin", 18, x.min(ax, keep));
  REDUCE("ReduceMean", 18, x.mean(ax, keep));
  REDUCE("ReduceProd", 18, x.prod(ax, keep));
  REDUCE("ReduceSumSquare", 18, (x * x).sum(ax, keep));
  REDUCE("ReduceL1", 18, x.abs().sum(ax, keep));
  REDUCE("ReduceL2", 18, x.cast(dtypes::float32).square().sum(ax, keep).sqrt());
  REDUCE("ReduceLogSum", 18, x.sum(ax, keep).log());
  REDUCE("ReduceLogSumExp", 18, x.cast(dtypes::float64).logsumexp(ax, keep));
  r.add("ArgMax", [](Ctx& c) { return One(ArgMax(c, false)); });
  r.add("ArgMin", [](Ctx& c) { return One(ArgMax(c, true)); });
  r.add("Softmax", [](Ctx& c) { return SoftmaxLike(c, [](const Tensor& x, int a) { return x.softmax(a); }); });
  r.add("LogSoftmax", [](Ctx& c) { return SoftmaxLike(c, [](const Tensor& x, int a) { return x.log_softmax(a); }); });
  r.add("Hardmax", [](Ctx& c) { return SoftmaxLike(c, Hardmax); });
  r.add("CumSum", [](Ctx& c) { return One(CumSum(c)); });
}

}  // namespace tg::onnx
