"""Reductions, scans, softmax family. tinygrad keeps int32 where PyTorch widens to int64."""
import torch

from golden_lib import Case, In

FAMILY = "reduce"


def red(fn):
  """A torch reduction taking tinygrad-style (axis list or None, keepdim)."""
  def run(x, axis=None, keepdim=False, **kw):
    if axis is None or len(axis) == 0:
      out = fn(x, **kw) if not keepdim else fn(x.reshape(-1), dim=0, keepdim=False, **kw).reshape([1] * x.ndim)
      return out
    return fn(x, dim=tuple(axis), keepdim=keepdim, **kw)
  return run


def amax(x, dim=None, keepdim=False): return x.amax() if dim is None else x.amax(dim=dim, keepdim=keepdim)
def amin(x, dim=None, keepdim=False): return x.amin() if dim is None else x.amin(dim=dim, keepdim=keepdim)


def prod(x, dim=None, keepdim=False):
  if dim is None: return x.prod()
  for d in sorted(dim, reverse=True): x = x.prod(d, keepdim=keepdim)
  return x


def logsumexp(x, dim=None, keepdim=False):
  return torch.logsumexp(x, dim=tuple(range(x.ndim)) if dim is None else dim, keepdim=keepdim)


AXES = [("all", None, False), ("axis0", [0], False), ("axis1_keep", [1], True), ("neg_axis", [-1], False),
        ("two_axes", [0, 2], False)]
CASES = []
for op, fn in {"sum": torch.sum, "max": amax, "min": amin, "mean": torch.mean, "prod": prod,
               "logsumexp": logsumexp}.items():
  for aname, axis, keepdim in AXES:
    CASES.append(Case(f"{op}_{aname}", op, [In((2, 3, 4), low=0.5 if op == "prod" else -2, high=1.5 if op == "prod"
                                                else 2)],
                      red(fn), args={"axis": axis, "keepdim": keepdim}, fd=aname == "axis1_keep"))
  CASES.append(Case(f"{op}_scalar_input", op, [In(())], red(fn), args={"axis": None, "keepdim": False}))
  CASES.append(Case(f"{op}_permuted", op, [In((4, 3), view=[("permute", [1, 0])])], red(fn),
                    args={"axis": [1], "keepdim": False}))
  CASES.append(Case(f"{op}_expanded", op, [In((3, 1), view=[("expand", [3, 5])])], red(fn),
                    args={"axis": [1], "keepdim": True}))
for op, fn in {"sum": torch.sum, "mean": torch.mean, "prod": prod}.items():
  CASES.append(Case(f"{op}_empty_axis", op, [In((0, 3))], red(fn), args={"axis": [0], "keepdim": False}))
CASES += [
    Case("sum_int32", "sum", [In((3, 4), "int32", low=-50, high=50)], red(torch.sum),
         args={"axis": [1], "keepdim": False}, out_dtype="int32", grad=False),
    Case("sum_bool", "sum", [In((3, 4), "bool")], red(torch.sum), args={"axis": None, "keepdim": False},
         out_dtype="int32", grad=False),
    Case("sum_int8_acc", "sum", [In((40,), "int8", low=100, high=127)], red(torch.sum),
         args={"axis": None, "keepdim": False}, out_dtype="int32", grad=False),
    Case("sum_half", "sum", [In((4, 8), "float16")], red(torch.sum), args={"axis": [1], "keepdim": False},
         atol=1e-2, rtol=1e-2, gatol=1e-2),
    Case("sum_dtype_float64", "sum_dtype", [In((3, 4))], lambda x, axis, dtype: x.sum(dim=axis, dtype=torch.float64),
         args={"axis": [1], "dtype": "float64"}),
    Case("max_int", "max", [In((3, 4), "int32", low=-50, high=50)], red(amax), args={"axis": [0], "keepdim": False},
         grad=False),
    Case("min_int", "min", [In((3, 4), "int32", low=-50, high=50)], red(amin), args={"axis": [0], "keepdim": False},
         grad=False),
    Case("max_ties_split", "max", [In((4,), values=[1.0, 3.0, 3.0, 2.0])], red(amax),
         args={"axis": None, "keepdim": False}),
    Case("mean_int", "mean", [In((3, 4), "int32", low=-50, high=50)], lambda x, axis, keepdim: x.float().mean(axis),
         args={"axis": [1], "keepdim": False}, grad=False),
    Case("prod_with_zero", "prod", [In((2, 4), values=[1.5, 0, 2, -1, 0.5, 2, 3, 0.25])], red(prod),
         args={"axis": [1], "keepdim": False}, fd=True),
    Case("prod_two_zeros", "prod", [In((5,), values=[0, 2, 0, 3, 1.5])], red(prod),
         args={"axis": None, "keepdim": False}),
    Case("prod_int", "prod", [In((3, 4), "int32", low=-3, high=4)], red(prod), args={"axis": [1], "keepdim": False},
         out_dtype="int32", grad=False),
    Case("any", "any", [In((3, 4), "bool")], lambda x, axis, keepdim: x.any(axis[0], keepdim=keepdim),
         args={"axis": [1], "keepdim": False}, grad=False),
    Case("all", "all", [In((3, 4), "bool")], lambda x, axis, keepdim: x.all(axis[0], keepdim=keepdim),
         args={"axis": [0], "keepdim": True}, grad=False),
    Case("any_float", "any", [In((3,), values=[0, 0.5, 0])], lambda x, axis, keepdim: x.any(),
         args={"axis": None, "keepdim": False}, grad=False),
    Case("all_empty", "all", [In((0,), "bool")], lambda x, axis, keepdim: x.all(), args={"axis": None,
                                                                                         "keepdim": False},
         grad=False),
]
def var(x, axis, keepdim, correction):
  dims = tuple(range(x.ndim)) if axis is None else tuple(axis)
  n = 1
  for d in dims: n *= x.shape[d]
  sq = (x - x.mean(dim=dims, keepdim=True)) ** 2
  return sq.sum(dim=dims, keepdim=keepdim) / max(n - correction, 0)


STATS = {"var": var, "std": lambda x, axis, keepdim, correction: var(x, axis, keepdim, correction).sqrt(),
         "var_mean": lambda x, axis, keepdim, correction: (var(x, axis, keepdim, correction),
                                                           x.mean(dim=tuple(axis), keepdim=keepdim)),
         "std_mean": lambda x, axis, keepdim, correction: (var(x, axis, keepdim, correction).sqrt(),
                                                           x.mean(dim=tuple(axis), keepdim=keepdim))}
for op in ["var", "std"]:
  fn = STATS[op]
  CASES += [
      Case(f"{op}_all", op, [In((3, 4))], fn, args={"axis": None, "keepdim": False, "correction": 1}, fd=True),
      Case(f"{op}_axis", op, [In((3, 5))], fn, args={"axis": [1], "keepdim": True, "correction": 1}),
      Case(f"{op}_correction0", op, [In((2, 3, 4))], fn, args={"axis": [0, 2], "keepdim": False, "correction": 0}),
      Case(f"{op}_mean", f"{op}_mean", [In((3, 4))], STATS[f"{op}_mean"],
           args={"axis": [1], "keepdim": False, "correction": 1}),
  ]
CASES += [
    Case("argmax_all", "argmax", [In((3, 4))], lambda x: x.argmax(), out_dtype="int32", grad=False),
    Case("argmax_axis", "argmax", [In((3, 4))], lambda x, axis, keepdim: x.argmax(axis, keepdim),
         args={"axis": 1, "keepdim": False}, out_dtype="int32", grad=False),
    Case("argmax_keepdim", "argmax", [In((3, 4, 2))], lambda x, axis, keepdim: x.argmax(axis, keepdim),
         args={"axis": 0, "keepdim": True}, out_dtype="int32", grad=False),
    Case("argmax_first_tie", "argmax", [In((5,), values=[1, 3, 2, 3, 0])], lambda x: x.argmax(), out_dtype="int32",
         grad=False),
    Case("argmax_int", "argmax", [In((3, 4), "int32", low=-50, high=50)],
         lambda x, axis, keepdim: x.argmax(axis, keepdim), args={"axis": -1, "keepdim": False}, out_dtype="int32",
         grad=False),
    Case("argmin_axis", "argmin", [In((3, 4))], lambda x, axis, keepdim: x.argmin(axis, keepdim),
         args={"axis": 0, "keepdim": False}, out_dtype="int32", grad=False),
    Case("argmin_all", "argmin", [In((2, 3))], lambda x: x.argmin(), out_dtype="int32", grad=False),
    Case("argmin_int", "argmin", [In((3, 4), "int32", low=-50, high=50)],
         lambda x, axis, keepdim: x.argmin(axis, keepdim), args={"axis": 1, "keepdim": False}, out_dtype="int32",
         grad=False),
]
for op in ["softmax", "log_softmax", "softmin"]:
  fn = getattr(torch, op) if op != "softmin" else torch.nn.functional.softmin
  CASES += [
      Case(f"{op}_last", op, [In((3, 5), low=-4, high=4)], lambda x, axis, fn=fn: fn(x, dim=axis),
           args={"axis": -1}, fd=True),
      Case(f"{op}_axis0", op, [In((3, 5), low=-4, high=4)], lambda x, axis, fn=fn: fn(x, dim=axis),
           args={"axis": 0}),
      Case(f"{op}_3d_permuted", op, [In((4, 2, 3), view=[("permute", [1, 2, 0])])],
           lambda x, axis, fn=fn: fn(x, dim=axis), args={"axis": 1}),
      Case(f"{op}_large", op, [In((2, 6), low=50, high=90)], lambda x, axis, fn=fn: fn(x, dim=axis),
           args={"axis": -1}),
      Case(f"{op}_half", op, [In((2, 6), "float16")], lambda x, axis, fn=fn: fn(x, dim=axis), args={"axis": -1},
           atol=5e-3, rtol=5e-3, gatol=5e-2, grtol=1e-2),
  ]
for op in ["cumsum", "cumprod"]:
  fn = getattr(torch, op)
  CASES += [
      Case(f"{op}_axis0", op, [In((4, 3), low=0.5, high=1.5)], lambda x, axis, fn=fn: fn(x, axis), args={"axis": 0},
           fd=True),
      Case(f"{op}_axis1", op, [In((3, 5), low=0.5, high=1.5)], lambda x, axis, fn=fn: fn(x, axis),
           args={"axis": 1}),
      Case(f"{op}_negative_axis", op, [In((2, 3, 4), low=-1.5, high=1.5)], lambda x, axis, fn=fn: fn(x, axis),
           args={"axis": -1}),
      Case(f"{op}_scalar", op, [In(())], lambda x, axis, fn=fn: fn(x, axis), args={"axis": 0}),
      Case(f"{op}_empty", op, [In((0,))], lambda x, axis, fn=fn: fn(x, axis), args={"axis": 0}),
      Case(f"{op}_sliced", op, [In((5, 6), low=0.5, high=1.5, view=[("shrink", [(1, 4), (0, 5)])])],
           lambda x, axis, fn=fn: fn(x, axis), args={"axis": 1}),
      Case(f"{op}_long", op, [In((300,), low=0.99, high=1.01)], lambda x, axis, fn=fn: fn(x, axis),
           args={"axis": 0}, atol=1e-5),
  ]
CASES += [
    Case("cumsum_int", "cumsum", [In((6,), "int32", low=-5, high=5)], lambda x, axis: torch.cumsum(x, axis),
         args={"axis": 0}, out_dtype="int32", grad=False),
    Case("cumsum_bool", "cumsum", [In((6,), "bool")], lambda x, axis: torch.cumsum(x, axis), args={"axis": 0},
         out_dtype="int32", grad=False),
    Case("cumprod_with_zero", "cumprod", [In((5,), values=[2, 0.5, 0, 3, 1.5])], lambda x, axis: torch.cumprod(x, axis),
         args={"axis": 0}),
]
for op in ["cummax", "cummin"]:
  fn = getattr(torch, op)
  CASES += [
      Case(f"{op}_axis0", op, [In((5, 3))], lambda x, axis, fn=fn: tuple(fn(x, axis)), args={"axis": 0},
           out_dtype=[None, "int32"]),
      Case(f"{op}_axis1", op, [In((3, 6))], lambda x, axis, fn=fn: tuple(fn(x, axis)), args={"axis": 1},
           out_dtype=[None, "int32"]),
      Case(f"{op}_int", op, [In((8,), "int32", low=-100, high=100)], lambda x, axis, fn=fn: tuple(fn(x, axis)),
           args={"axis": 0}, out_dtype=[None, "int32"], grad=False),
  ]
