"""Unary math, activations and casts."""
import math

import torch
import torch.nn.functional as F

from golden_lib import Case, In

FAMILY = "math"
HALF = dict(atol=5e-3, rtol=5e-3, gatol=5e-2, grtol=1e-2)  # float16: ~3 decimal digits

# op name -> (torch fn, (low, high) input domain); domains avoid poles, branch cuts and kinks
UNARY = {
    "neg": (torch.neg, (-2, 2)), "log": (torch.log, (0.1, 3)), "log2": (torch.log2, (0.1, 3)),
    "log10": (torch.log10, (0.1, 3)), "exp": (torch.exp, (-2, 2)), "exp2": (torch.exp2, (-2, 2)),
    "sqrt": (torch.sqrt, (0.1, 3)), "rsqrt": (torch.rsqrt, (0.1, 3)), "sin": (torch.sin, (-3, 3)),
    "cos": (torch.cos, (-3, 3)), "tan": (torch.tan, (-1.2, 1.2)), "asin": (torch.asin, (-0.9, 0.9)),
    "acos": (torch.acos, (-0.9, 0.9)), "atan": (torch.atan, (-3, 3)), "trunc": (torch.trunc, (-3, 3)),
    "ceil": (torch.ceil, (-3, 3)), "floor": (torch.floor, (-3, 3)), "round": (torch.round, (-3, 3)),
    "square": (torch.square, (-2, 2)), "sign": (torch.sign, (-2, 2)), "abs": (torch.abs, (-2, 2)),
    "reciprocal": (torch.reciprocal, (0.2, 2)),
    # activations
    "relu": (torch.relu, (-2, 2)), "sigmoid": (torch.sigmoid, (-4, 4)), "logsigmoid": (F.logsigmoid, (-4, 4)),
    "hardsigmoid": (F.hardsigmoid, (-4, 4)), "elu": (F.elu, (-2, 2)), "celu": (F.celu, (-2, 2)),
    "selu": (F.selu, (-2, 2)), "swish": (F.silu, (-3, 3)), "silu": (F.silu, (-3, 3)),
    "relu6": (F.relu6, (-2, 8)), "hardswish": (F.hardswish, (-4, 4)), "tanh": (torch.tanh, (-3, 3)),
    "sinh": (torch.sinh, (-2, 2)), "cosh": (torch.cosh, (-2, 2)), "atanh": (torch.atanh, (-0.9, 0.9)),
    "asinh": (torch.asinh, (-3, 3)), "acosh": (torch.acosh, (1.1, 3)), "hardtanh": (F.hardtanh, (-2, 2)),
    "erf": (torch.erf, (-2, 2)), "gelu": (lambda x: F.gelu(x, approximate="tanh"), (-3, 3)),
    "quick_gelu": (lambda x: x * torch.sigmoid(1.702 * x), (-3, 3)), "leaky_relu": (F.leaky_relu, (-2, 2)),
    "mish": (F.mish, (-3, 3)), "softplus": (F.softplus, (-3, 3)), "softsign": (F.softsign, (-3, 3)),
}
HALF_OK = ["neg", "log", "exp", "sqrt", "sin", "cos", "relu", "sigmoid", "tanh", "gelu", "silu", "abs", "square",
           "softplus", "floor"]
FD = {"log", "exp", "sqrt", "sin", "cos", "tan", "asin", "atan", "sigmoid", "tanh", "gelu", "mish", "softplus",
      "erf", "elu", "selu", "atanh", "asinh", "acosh", "logsigmoid", "sinh", "cosh", "rsqrt", "reciprocal"}

CASES = []
for op, (fn, (lo, hi)) in UNARY.items():
  f = (lambda fn: lambda x: fn(x))(fn)
  CASES.append(Case(f"{op}_2d", op, [In((3, 4), low=lo, high=hi)], f, fd=op in FD))
  CASES.append(Case(f"{op}_scalar", op, [In((), low=lo, high=hi)], f))
  CASES.append(Case(f"{op}_permuted", op, [In((5, 3), low=lo, high=hi, view=[("permute", [1, 0])])], f))
  if op in HALF_OK:
    CASES.append(Case(f"{op}_half", op, [In((2, 5), "float16", low=lo, high=hi)], f, **HALF))
for op in ["exp", "relu", "sigmoid", "log_softmax_like_neg" if False else "neg", "tanh"]:
  fn, (lo, hi) = UNARY[op]
  CASES.append(Case(f"{op}_empty", op, [In((0, 3), low=lo, high=hi)], lambda x, fn=fn: fn(x)))
  CASES.append(Case(f"{op}_expanded", op, [In((1, 4), low=lo, high=hi, view=[("expand", [3, 4])])],
                    lambda x, fn=fn: fn(x)))
CASES += [
    Case("round_half_even", "round", [In((8,), values=[0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.49])], torch.round),
    Case("relu_sliced", "relu", [In((4, 6), view=[("shrink", [(1, 3), (2, 6)])])], torch.relu),
    Case("exp_float64", "exp", [In((3, 3), "float64")], torch.exp, fd=True),
    Case("sign_int", "sign", [In((6,), "int32", low=-3, high=4)], torch.sign, grad=False),
    Case("abs_int", "abs", [In((6,), "int32", low=-3, high=4)], torch.abs, grad=False),
    Case("neg_int", "neg", [In((6,), "int32", low=-3, high=4)], torch.neg, grad=False),
    Case("sqrt_int", "sqrt", [In((6,), "int32", low=0, high=9)], torch.sqrt, grad=False),
    Case("exp_int", "exp", [In((6,), "int32", low=-2, high=3)], torch.exp, grad=False),
    Case("clamp_both", "clamp", [In((3, 4))], lambda x, min, max: x.clamp(min, max), args={"min": -0.5, "max": 0.7}),
    Case("clamp_min", "clamp", [In((3, 4))], lambda x, min: x.clamp(min=min), args={"min": -0.5}),
    Case("clamp_max", "clamp", [In((3, 4))], lambda x, max: x.clamp(max=max), args={"max": 0.3}),
    Case("clip_int", "clamp", [In((8,), "int32", low=-5, high=5)], lambda x, min, max: x.clamp(min, max),
         args={"min": -2, "max": 3}, grad=False),
    Case("leaky_relu_slope", "leaky_relu", [In((3, 4))], lambda x, neg_slope: F.leaky_relu(x, neg_slope),
         args={"neg_slope": 0.2}),
    Case("elu_alpha", "elu", [In((3, 4))], lambda x, alpha: F.elu(x, alpha), args={"alpha": 0.5}),
    Case("celu_alpha", "celu", [In((3, 4))], lambda x, alpha: F.celu(x, alpha), args={"alpha": 2.0}),
    Case("softplus_beta", "softplus", [In((3, 4))], lambda x, beta: F.softplus(x, beta), args={"beta": 2.0}),
    Case("hardtanh_bounds", "hardtanh", [In((3, 4))], lambda x, min_val, max_val: F.hardtanh(x, min_val, max_val),
         args={"min_val": -0.5, "max_val": 1.5}),
    Case("gelu_erf", "gelu_none", [In((3, 4), low=-3, high=3)], lambda x: F.gelu(x), fd=True),
    Case("lerp_tensor", "lerp", [In((3, 4)), In((3, 4)), In((3, 4), low=0, high=1)], torch.lerp, fd=True),
    Case("lerp_scalar", "lerp_scalar", [In((3, 4)), In((4,))], lambda a, b, w: torch.lerp(a, b.expand(3, 4), w),
         args={"w": 0.3}),
    Case("isinf", "isinf", [In((6,), values=[1, math.inf, -math.inf, math.nan, 0, -2])], torch.isinf, grad=False),
    Case("isnan", "isnan", [In((6,), values=[1, math.inf, -math.inf, math.nan, 0, -2])], torch.isnan, grad=False),
    Case("isfinite", "isfinite", [In((6,), values=[1, math.inf, -math.inf, math.nan, 0, -2])], torch.isfinite,
         grad=False),
    Case("isinf_positive_only", "isinf_pos", [In((6,), values=[1, math.inf, -math.inf, math.nan, 0, -2])],
         torch.isposinf, grad=False),
    Case("logical_not_bool", "logical_not", [In((2, 3), "bool")], torch.logical_not, grad=False),
    Case("logical_not_float", "logical_not", [In((5,), values=[0, 1, -2, 0, 0.5])], torch.logical_not,
         grad=False),
]
# casts: every dtype from float32 and from int32 (values that fit every target)
for dst in ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]:
  CASES.append(Case(f"cast_f32_to_{dst}", "cast", [In((2, 4), low=0, high=100)],
                    lambda x, dtype: x.to(getattr(torch, dtype if dtype != "bool" else "bool")), args={"dtype": dst},
                    grad=dst in ("float16", "float32", "float64"), atol=0.1 if dst == "float16" else 1e-6))
  CASES.append(Case(f"cast_i32_to_{dst}", "cast", [In((2, 4), "int32", low=0, high=100)],
                    lambda x, dtype: x.to(getattr(torch, dtype)), args={"dtype": dst}, grad=False))
CASES += [
    Case("cast_negative_float_to_int", "cast", [In((6,), values=[-2.7, -0.5, 0.5, 2.7, -9.9, 9.9])],
         lambda x, dtype: x.to(torch.int32), args={"dtype": "int32"}, grad=False),
    Case("float_shorthand", "float_", [In((4,), "int32")], lambda x: x.float(), grad=False),
    Case("half_shorthand", "half", [In((4,), low=0, high=8)], lambda x: x.half(), atol=1e-2),
    Case("double_shorthand", "double_", [In((4,))], lambda x: x.double()),
    Case("int_shorthand", "int_", [In((4,), low=-5, high=5)], lambda x: x.int(), grad=False),
    Case("long_shorthand", "long_", [In((4,), "int32")], lambda x: x.long(), grad=False),
    Case("short_shorthand", "short_", [In((4,), "int32")], lambda x: x.short(), grad=False),
    Case("bool_shorthand", "bool_", [In((4,), "int32", low=0, high=3)], lambda x: x.bool(), grad=False),
    Case("bitcast_f32_i32", "bitcast", [In((2, 3))], lambda x, dtype: x.view(torch.int32), args={"dtype": "int32"},
         grad=False, ref64=False),
    Case("bitcast_i32_f32", "bitcast", [In((5,), "int32", low=1 << 20, high=1 << 29)],
         lambda x, dtype: x.view(torch.float32), args={"dtype": "float32"}, grad=False),
    Case("bitcast_f16_i16", "bitcast", [In((4,), "float16")], lambda x, dtype: x.view(torch.int16),
         args={"dtype": "int16"}, grad=False, ref64=False),
    Case("bitcast_i64_f64", "bitcast", [In((3,), "int64", low=1 << 40, high=1 << 50)],
         lambda x, dtype: x.view(torch.float64), args={"dtype": "float64"}, grad=False),
]
