"""Binary ops: broadcasting, dtype promotion, scalars on either side."""
import torch

from golden_lib import Case, In

FAMILY = "binary"
NONZERO = [-3, -2, -1, 1, 2, 3, -4, 4, 5, -5, 6, 7]  # int divisors

ARITH = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
         "minimum": torch.minimum}
CMP = {"lt": torch.lt, "gt": torch.gt, "le": torch.le, "ge": torch.ge, "eq": torch.eq, "ne": torch.ne}
SHAPES = {  # name -> (a spec, b spec)
    "same": (In((3, 4)), In((3, 4), low=0.5, high=2)),
    "bcast_both": (In((3, 1)), In((1, 4), low=0.5, high=2)),
    "bcast_rank": (In((2, 3, 4)), In((4,), low=0.5, high=2)),
    "scalar_tensor": (In(()), In((2, 3), low=0.5, high=2)),
    "empty": (In((0, 3)), In((1, 3), low=0.5, high=2)),
    "permuted": (In((4, 3), view=[("permute", [1, 0])]), In((3, 4), low=0.5, high=2)),
    "expanded": (In((1, 4), view=[("expand", [3, 4])]), In((3, 1), low=0.5, high=2, view=[("expand", [3, 4])])),
    "sliced": (In((5, 6), view=[("shrink", [(1, 4), (0, 4)])]), In((3, 4), low=0.5, high=2)),
}

CASES = []
for op, fn in ARITH.items():
  for sname, (a, b) in SHAPES.items():
    CASES.append(Case(f"{op}_{sname}", op, [a, b], fn, fd=sname == "bcast_both"))
for op, fn in CMP.items():
  CASES.append(Case(f"{op}_same", op, [In((3, 4)), In((3, 4))], fn, grad=False))
  CASES.append(Case(f"{op}_bcast", op, [In((3, 1), "int32"), In((4,), "int32")], fn, grad=False))
  CASES.append(Case(f"{op}_scalar", f"{op}_scalar", [In((2, 3))], lambda x, s, fn=fn: fn(x, s), args={"s": 0.25},
                    grad=False))
# scalars on either side keep the tensor's dtype where they fit (weak types)
for op, fn in {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}.items():
  CASES.append(Case(f"{op}_scalar_right", f"{op}_scalar", [In((2, 3))], lambda x, s, fn=fn: fn(x, s),
                    args={"s": 1.5}))
  CASES.append(Case(f"r{op}_scalar_left", f"r{op}_scalar", [In((2, 3), low=0.5, high=2)],
                    lambda x, s, fn=fn: fn(torch.tensor(s, dtype=x.dtype), x), args={"s": 1.5}))
  CASES.append(Case(f"{op}_int_scalar", f"{op}_scalar", [In((2, 3), "int32", low=-5, high=5)],
                    lambda x, s, fn=fn: fn(x, s), args={"s": 3}, grad=False))
CASES += [
    # dtype promotion
    Case("add_int32_float32", "add", [In((3,), "int32"), In((3,))], torch.add),
    Case("add_int8_int16", "add", [In((3,), "int8"), In((3,), "int16")], torch.add, grad=False),
    Case("add_uint8_int8", "add", [In((3,), "uint8"), In((3,), "int8")], torch.add, grad=False),
    Case("add_bool_int32", "add", [In((4,), "bool"), In((4,), "int32")], torch.add, grad=False),
    Case("add_half_float", "add", [In((3,), "float16"), In((3,))], torch.add, atol=1e-3),
    Case("mul_int_float_scalar", "mul_scalar", [In((4,), "int32")], lambda x, s: x * s, args={"s": 0.5},
         grad=False),
    Case("add_half_scalar", "add_scalar", [In((4,), "float16")], lambda x, s: x + s, args={"s": 0.5},
         atol=1e-3, grad=False),
    Case("mul_int64", "mul", [In((3,), "int64", low=-100, high=100), In((3,), "int64")], torch.mul, grad=False),
    Case("div_ints_true", "div", [In((6,), "int32", low=-9, high=9), In((6,), "int32", values=NONZERO[:6])],
         torch.div, grad=False),
    # rounding division, mod, fmod
    Case("div_trunc_int", "div_mode", [In((12,), "int32", low=-20, high=20), In((12,), "int32", values=NONZERO)],
         lambda a, b, mode: torch.div(a, b, rounding_mode=mode), args={"mode": "trunc"}, grad=False),
    Case("div_floor_int", "div_mode", [In((12,), "int32", low=-20, high=20), In((12,), "int32", values=NONZERO)],
         lambda a, b, mode: torch.div(a, b, rounding_mode=mode), args={"mode": "floor"}, grad=False),
    Case("div_trunc_float", "div_mode", [In((3, 4), low=-5, high=5), In((3, 4), low=0.3, high=2)],
         lambda a, b, mode: torch.div(a, b, rounding_mode=mode), args={"mode": "trunc"}),
    Case("div_floor_float", "div_mode", [In((3, 4), low=-5, high=5), In((3, 4), low=0.3, high=2)],
         lambda a, b, mode: torch.div(a, b, rounding_mode=mode), args={"mode": "floor"}),
    Case("mod_int", "mod", [In((12,), "int32", low=-20, high=20), In((12,), "int32", values=NONZERO)],
         torch.remainder, grad=False),
    Case("mod_float", "mod", [In((3, 4), low=-5, high=5), In((3, 4), low=0.3, high=2)], torch.remainder,
         atol=1e-5),
    Case("mod_int_scalar", "mod_scalar", [In((8,), "int32", low=-20, high=20)], lambda a, s: a % s,
         args={"s": 3}, grad=False),
    Case("fmod_int", "fmod", [In((12,), "int32", low=-20, high=20), In((12,), "int32", values=NONZERO)],
         torch.fmod, grad=False),
    Case("fmod_float", "fmod", [In((3, 4), low=-5, high=5), In((3, 4), low=0.3, high=2)], torch.fmod, atol=1e-5),
    # pow
    Case("pow_tensor", "pow", [In((3, 4), low=0.5, high=2), In((3, 4), low=-2, high=2)], torch.pow, fd=True),
    Case("pow_bcast", "pow", [In((3, 1), low=0.5, high=2), In((4,), low=-2, high=2)], torch.pow),
    Case("pow_negative_base_int_exponent", "pow",
         [In((6,), values=[-2, -1.5, -0.5, 1, 2, -3]), In((6,), values=[2, 3, -1, 2, 0, 1], grad=False)],
         torch.pow),
    Case("pow_zero_zero", "pow", [In((2,), values=[0, 2], grad=False), In((2,), values=[0, 0], grad=False)],
         torch.pow, grad=False),
    Case("pow_negative_fraction_nan", "pow", [In((2,), values=[-2, 2]), In((2,), values=[0.5, 0.5])],
         torch.pow, grad=False),
    *[Case(f"pow_scalar_{str(e).replace('.', 'p').replace('-', 'm')}", "pow_scalar", [In((3, 4), low=0.5, high=2)],
           lambda x, e: x ** e, args={"e": e}) for e in [2, 3, 0, -1, 0.5, 2.5, -2, 1.3]],
    Case("pow_scalar_negative_base", "pow_scalar", [In((3, 4))], lambda x, e: x ** e, args={"e": 3}),
    Case("pow_int_tensor_scalar", "pow_scalar", [In((5,), "int32", low=-4, high=5)], lambda x, e: x ** e,
         args={"e": 3}, grad=False),
    Case("rpow_scalar_base", "rpow_scalar", [In((3, 4))], lambda x, b: b ** x, args={"b": 2.0}),
    # copysign, logaddexp
    Case("copysign", "copysign", [In((3, 4)), In((3, 4))], torch.copysign),
    Case("copysign_neg_zero", "copysign", [In((4,), values=[1, -2, 3, 4]), In((4,), values=[-0.0, 0.0, -1, 1])],
         torch.copysign),
    Case("copysign_scalar", "copysign_scalar", [In((3, 4))], lambda a, s: torch.copysign(a, torch.tensor(s)),
         args={"s": -1.0}),
    Case("logaddexp", "logaddexp", [In((3, 4), low=-5, high=5), In((3, 4), low=-5, high=5)], torch.logaddexp,
         fd=True),
    Case("logaddexp_bcast", "logaddexp", [In((3, 1), low=-5, high=5), In((4,), low=-5, high=5)], torch.logaddexp),
    # where, masked_fill
    Case("where", "where", [In((3, 4), "bool"), In((3, 4)), In((3, 4))], torch.where),
    Case("where_bcast", "where", [In((3, 1), "bool"), In((4,)), In(())], torch.where),
    Case("where_scalars", "where_scalars", [In((3, 4), "bool")], lambda c, x, y: torch.where(c, x, y),
         args={"x": 1.5, "y": -2.0}),
    Case("where_int", "where", [In((5,), "bool"), In((5,), "int32"), In((5,), "int32")], torch.where, grad=False),
    Case("masked_fill", "masked_fill", [In((3, 4)), In((3, 4), "bool")], lambda x, m, v: x.masked_fill(m, v),
         args={"v": -1.5}),
    Case("masked_fill_bcast", "masked_fill", [In((3, 4)), In((4,), "bool")], lambda x, m, v: x.masked_fill(m, v),
         args={"v": 2.0}),
    Case("masked_fill_tensor", "masked_fill_tensor", [In((3, 4)), In((3, 4), "bool"), In(())],
         lambda x, m, v: x.masked_fill(m, v)),
]
# bitwise ops and shifts
for op, fn in {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or,
               "bitwise_xor": torch.bitwise_xor}.items():
  CASES.append(Case(f"{op}_int", op, [In((3, 4), "int32", low=-50, high=50), In((4,), "int32", low=0, high=64)],
                    fn, grad=False))
  CASES.append(Case(f"{op}_bool", op, [In((6,), "bool"), In((6,), "bool")], fn, grad=False))
  CASES.append(Case(f"{op}_uint8", op, [In((6,), "uint8", low=0, high=255), In((6,), "uint8", low=0, high=255)],
                    fn, grad=False))
  CASES.append(Case(f"{op}_scalar", f"{op}_scalar", [In((6,), "int32", low=0, high=64)],
                    lambda x, s, fn=fn: fn(x, s), args={"s": 13}, grad=False))
CASES += [
    Case("bitwise_not_int", "bitwise_not", [In((6,), "int32", low=-50, high=50)], torch.bitwise_not, grad=False),
    Case("bitwise_not_uint8", "bitwise_not", [In((6,), "uint8", low=0, high=255)], torch.bitwise_not, grad=False),
    Case("bitwise_not_bool", "bitwise_not", [In((6,), "bool")], torch.bitwise_not, grad=False),
    Case("lshift", "lshift", [In((6,), "int32", low=-50, high=50), In((6,), "int32", low=0, high=8)],
         torch.bitwise_left_shift, grad=False),
    Case("rshift", "rshift", [In((6,), "int32", low=-500, high=500), In((6,), "int32", low=0, high=8)],
         torch.bitwise_right_shift, grad=False),
    Case("lshift_scalar", "lshift_scalar", [In((6,), "int32", low=-50, high=50)], lambda x, s: x << s,
         args={"s": 2}, grad=False),
    Case("rshift_scalar", "rshift_scalar", [In((6,), "int64", low=-5000, high=5000)], lambda x, s: x >> s,
         args={"s": 3}, grad=False),
]
