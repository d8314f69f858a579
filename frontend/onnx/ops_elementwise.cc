// Elementwise ONNX ops: unary math and activations, broadcasting binary ops, comparisons, logic,
// variadic Sum/Mean/Max/Min, Cast. Each is one line over the Tensor API, so they fuse into one kernel.
#include <cmath>
#include <limits>

#include "frontend/onnx/onnx_tensor.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

// ONNX binary ops take two inputs of one type T and return T; Tensor ops promote, so results of a
// promotion (a weak int scalar input, bool math) are cast back to the first input's dtype.
Tensor Same(const Tensor& r, const Tensor& like) { return r.dtype() == like.dtype() ? r : r.cast(like.dtype()); }

std::vector<Tensor> Variadic(Ctx& c, Tensor (Tensor::*op)(const Tensor&) const) {
  std::vector<Tensor> xs = c.all_inputs();
  if (xs.empty()) c.fail("needs at least one input");
  Tensor acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) acc = (acc.*op)(xs[i]);
  return One(acc);
}

Tensor Pow(const Tensor& x, const Tensor& y) {
  if (x.dtype().is_float()) return x.pow(y.dtype().is_float() ? y.cast(x.dtype()) : y).cast(x.dtype());
  // Integer bases: exact by repeated squaring when the exponent is an integer tensor too.
  if (!y.dtype().is_float()) return x.pow(y.cast(x.dtype())).cast(x.dtype());
  return x.cast(dtypes::float64).pow(y.cast(dtypes::float64)).round().cast(x.dtype());
}

Tensor Clip(Ctx& c) {
  Tensor x = c.in(0);
  if (c.opset() < 11) {  // bounds were attributes until opset 11
    double lo = c.attr_float("min", -std::numeric_limits<double>::infinity());
    double hi = c.attr_float("max", std::numeric_limits<double>::infinity());
    return x.maximum(ConstLike(x, lo, x.dtype())).minimum(ConstLike(x, hi, x.dtype()));
  }
  if (c.has(1)) x = x.maximum(c.in(1).cast(x.dtype()));
  if (c.has(2)) x = x.minimum(c.in(2).cast(x.dtype()));
  return x;
}

Tensor Cast(const Tensor& x, DType to) {
  if (x.dtype() == to) return x;
  if (to.is_bool()) return x.ne(ConstLike(x, 0, x.dtype()));
  return x.cast(to);
}

#define UNARY(NAME, ...) r.add(NAME, [](Ctx& c) { const Tensor x = c.in(0); return One(__VA_ARGS__); })
#define BINARY(NAME, ...) \
  r.add(NAME, [](Ctx& c) { const Tensor x = c.in(0), y = c.in(1); return One(__VA_ARGS__); })

}  // namespace

void RegisterElementwiseOps(OpRegistry& r) {
  UNARY("Identity", x);
  UNARY("Neg", x.neg());
  UNARY("Abs", x.abs());
  UNARY("Sign", x.sign());
  UNARY("Reciprocal", x.reciprocal());
  UNARY("Sqrt", x.sqrt());
  UNARY("Exp", x.exp());
  UNARY("Log", x.log());
  UNARY("Sin", x.sin());
  UNARY("Cos", x.cos());
  UNARY("Tan", x.tan());
  UNARY("Asin", x.asin());
  UNARY("Acos", x.acos());
  UNARY("Atan", x.atan());
  UNARY("Sinh", x.sinh());
  UNARY("Cosh", x.cosh());
  UNARY("Tanh", x.tanh());
  UNARY("Asinh", x.asinh());
  UNARY("Acosh", x.acosh());
  UNARY("Atanh", x.atanh());
  UNARY("Relu", x.relu());
  UNARY("Sigmoid", x.sigmoid());
  UNARY("Softplus", x.softplus());
  UNARY("Softsign", x.softsign());
  UNARY("HardSwish", x.hardswish());
  UNARY("Mish", x.mish());
  UNARY("Floor", x.floor());
  UNARY("Ceil", x.ceil());
  UNARY("Round", x.round());
  UNARY("Erf", x.erf());
  UNARY("IsNaN", x.isnan());
  UNARY("Not", x.logical_not());
  UNARY("BitwiseNot", x.bitwise_not());
  UNARY("Elu", x.elu(c.attr_float("alpha", 1.0)));
  UNARY("Celu", x.celu(c.attr_float("alpha", 1.0)));
  UNARY("Selu", x.selu(c.attr_float("alpha", 1.67326319217681884765625), c.attr_float("gamma", 1.05070102214813232421875)));
  UNARY("LeakyRelu", x.leaky_relu(c.attr_float("alpha", 0.01)));
  UNARY("ThresholdedRelu", x.gt(ConstLike(x, c.attr_float("alpha", 1.0), x.dtype())).where(x, x.zeros_like()));
  UNARY("HardSigmoid",
        (x * ConstLike(x, c.attr_float("alpha", 0.2), x.dtype()) + ConstLike(x, c.attr_float("beta", 0.5), x.dtype()))
            .maximum(x.zeros_like()).minimum(x.ones_like()));
  UNARY("Gelu", x.gelu(c.attr_string("approximate", "none")));
  UNARY("IsInf", x.isinf(c.attr_int("detect_positive", 1) != 0, c.attr_int("detect_negative", 1) != 0));
  UNARY("Shrink", [&] {
    double bias = c.attr_float("bias", 0.0), lambd = c.attr_float("lambd", 0.5);
    Tensor xf = x.cast(dtypes::float32);
    return (xf < -lambd).where(xf + bias, (xf > lambd).where(xf - bias, 0.0f)).cast(x.dtype());
  }());
  UNARY("Cast", Cast(x, DTypeFromOnnx(c.attr_int("to", 1))));
  BINARY("CastLike", Cast(x, y.dtype()));

  BINARY("Add", Same(x + y, x));
  BINARY("Sub", Same(x - y, x));
  BINARY("Mul", Same(x * y, x));
  BINARY("Div", x.dtype().is_float() ? Same(x / y, x) : x.div(y, "trunc"));
  BINARY("Pow", Pow(x, y));
  BINARY("Mod", c.attr_int("fmod", 0) ? x.fmod(y) : x.mod(y));
  BINARY("PRelu", (x > 0).where(x, Same(x * y, x)));
  BINARY("Less", x < y);
  BINARY("LessOrEqual", x <= y);
  BINARY("Greater", x > y);
  BINARY("GreaterOrEqual", x >= y);
  BINARY("Equal", x == y);
  BINARY("And", x.bitwise_and(y));
  BINARY("Or", x.bitwise_or(y));
  BINARY("Xor", x.bitwise_xor(y));
  BINARY("BitwiseAnd", x.bitwise_and(y));
  BINARY("BitwiseOr", x.bitwise_or(y));
  BINARY("BitwiseXor", x.bitwise_xor(y));
  BINARY("BitShift", c.attr_string("direction", "") == "LEFT" ? x.lshift(y) : x.rshift(y));
  r.add("Where", [](Ctx& c) { return One(c.in(0).where(c.in(1), c.in(2))); });
  r.add("Clip", [](Ctx& c) { return One(Clip(c)); });
  r.add("Sum", [](Ctx& c) { return Variadic(c, &Tensor::add); });
  r.add("Max", [](Ctx& c) { return Variadic(c, &Tensor::maximum); });
  r.add("Min", [](Ctx& c) { return Variadic(c, &Tensor::minimum); });
  r.add("Mean", [](Ctx& c) {
    Tensor s = Variadic(c, &Tensor::add)[0];
    return One(Same(s / static_cast<double>(c.all_inputs().size()), s));
  });
}

}  // namespace tg::onnx
