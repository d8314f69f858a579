// Graph and constant ONNX ops: Constant, If, Range, EyeLike, the Hann/Hamming/Blackman windows.
// If runs only the branch its (host-read) condition picks: the branches may disagree in shape.
#include <cmath>
#include <limits>
#include <numbers>

#include "frontend/onnx/onnx_tensor.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

std::vector<Tensor> Constant(Ctx& c) {
  if (auto t = c.attr_tensor("value")) {
    if (const HostValues* h = c.attr_host_values("value")) c.set_host_output(0, *h);
    return One(*t);
  }
  if (c.has_attr("value_float")) {
    double v = c.attr_float("value_float", 0);
    c.set_host_output(0, HostValues::Floats({v}));
    return One(Tensor::full({}, v, dtypes::float32, c.device()));
  }
  if (auto f = c.attr_floats("value_floats"); f && c.has_attr("value_floats")) {
    std::vector<float> v(f->begin(), f->end());
    c.set_host_output(0, HostValues::Floats(std::vector<double>(v.begin(), v.end())));  // as float32 holds them
    return One(Tensor::from_vector<float>(v, std::nullopt, c.device()));
  }
  if (c.has_attr("value_int")) {
    int64_t v = c.attr_int("value_int", 0);
    c.set_host_output(0, HostValues::Ints({v}));
    return One(Tensor::from_vector<int64_t>({v}, Shape{}, c.device()));
  }
  if (c.has_attr("value_ints")) {
    std::vector<int64_t> v = *c.attr_ints("value_ints");
    c.set_host_output(0, HostValues::Ints(v));
    return One(Tensor::from_vector<int64_t>(v, Shape{static_cast<int64_t>(v.size())}, c.device()));
  }
  c.fail("needs one of value, value_float(s), value_int(s); string and sparse constants are not supported");
}

std::vector<Tensor> If(Ctx& c) {
  std::vector<int64_t> cond = c.ints(0);
  if (cond.size() != 1) c.fail("cond must hold one value, it holds " + std::to_string(cond.size()));
  std::vector<Tensor> out = c.run_subgraph(c.attr_graph(cond[0] ? "then_branch" : "else_branch"));
  if (out.size() < c.num_outputs())
    c.fail("the branch returns " + std::to_string(out.size()) + " outputs, the node expects " + std::to_string(c.num_outputs()));
  return out;
}

// A bound of Range as the model wrote it: whole numbers without a fraction.
std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 0x1p63) return std::to_string(static_cast<int64_t>(v));
  return std::to_string(v);
}

Tensor Range(Ctx& c) {
  DType dtype = c.in(0).dtype();
  double start = c.floats(0).at(0), limit = c.floats(1).at(0), delta = c.floats(2).at(0);
  if (delta == 0) c.fail("delta must not be 0");
  // The count in double first: a hostile (limit - start) / delta past int64 must not wrap.
  double count = std::max(0.0, std::ceil((limit - start) / delta));
  int64_t n = count >= 0x1p63 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(count);
  c.check_output_budget("(start, limit, delta) = (" + Num(start) + ", " + Num(limit) + ", " + Num(delta) + ")", {n}, dtype);
  if (n == 0) return Tensor::zeros({0}, dtype, c.device());
  // start + i * delta, computed in the output dtype so ints stay exact.
  Tensor i = Tensor::arange(0, n, 1, dtype.is_float() ? dtype : dtypes::int64, c.device());
  return (i * Tensor::full({}, delta, i.dtype(), c.device()) + Tensor::full({}, start, i.dtype(), c.device())).cast(dtype);
}

Tensor EyeLike(Ctx& c) {
  const Tensor& x = c.in(0);
  DType dtype = c.has_attr("dtype") ? DTypeFromOnnx(c.attr_int("dtype", 1)) : x.dtype();
  int64_t rows = x.shape().at(0), cols = x.shape().at(1), k = c.attr_int("k", 0);
  Tensor r = Tensor::arange(0, rows, 1, dtypes::int32, x.device()).reshape({rows, 1});
  Tensor col = Tensor::arange(0, cols, 1, dtypes::int32, x.device()).reshape({1, cols});
  return (r + static_cast<int64_t>(k)).eq(col).cast(dtype);
}

// a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N); N = size (periodic) or size - 1 (symmetric).
Tensor Window(Ctx& c, double a0, double a1, double a2) {
  int64_t size = c.ints(0).at(0);
  // The window is computed on the host in doubles, then cast: the host vector is the larger allocation.
  c.check_output_budget("input 0 (size)", {std::max<int64_t>(size, 0)}, dtypes::float64);
  double denom = static_cast<double>(c.attr_int("periodic", 1) ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(std::max<int64_t>(size, 0)));
  for (int64_t i = 0; i < size; ++i)
    w[i] = a0 - a1 * std::cos(2 * std::numbers::pi * i / denom) + a2 * std::cos(4 * std::numbers::pi * i / denom);
  return Tensor::from_vector<double>(w, std::nullopt, c.device()).cast(DTypeFromOnnx(c.attr_int("output_datatype", 1)));
}

}  // namespace

void RegisterMiscOps(OpRegistry& r) {
  r.add("Constant", Constant);
  r.add("If", If);
  r.add("Range", [](Ctx& c) { return One(Range(c)); });
  r.add("EyeLike", [](Ctx& c) { return One(EyeLike(c)); });
  r.add("HannWindow", [](Ctx& c) { return One(Window(c, 0.5, 0.5, 0)); });
  r.add("HammingWindow", [](Ctx& c) { return One(Window(c, 25.0 / 46, 21.0 / 46, 0)); });
  r.add("BlackmanWindow", [](Ctx& c) { return One(Window(c, 0.42, 0.5, 0.08)); });
}

}  // namespace tg::onnx
