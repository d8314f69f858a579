"""Case description and file writer for the golden op tests (see README.md for the format).

A case module (cases_<family>.py) defines FAMILY (the data file's name) and CASES, a list of Case.
make_golden.py runs every case through PyTorch and writes data/<family>.golden.
"""
import struct
import zlib

import torch

FLOAT_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float64": torch.float64}
INT_DTYPES = {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
              "uint8": torch.uint8}
TORCH_DTYPES = {**FLOAT_DTYPES, **INT_DTYPES, "bool": torch.bool}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}


class In:
  """One input: a base tensor of |shape| (the leaf whose gradient is checked), then |view| applied.

  view: list of (kind, value): ("permute", [1, 0]), ("expand", [3, 4]), ("shrink", [(0, 2), (1, 3)]),
        ("flip", [0]), ("reshape", [6]). The C++ side applies the same ops with tg::Tensor.
  kind of data: uniform floats in [low, high) (default [-2, 2)), ints in [low, high), random bools,
        or the given |values| (row-major, base shape).
  """

  def __init__(self, shape, dtype="float32", low=None, high=None, view=(), grad=True, values=None):
    self.shape, self.dtype, self.view, self.values = tuple(shape), dtype, list(view), values
    is_float = dtype in FLOAT_DTYPES
    self.low = (-2.0 if is_float else 0) if low is None else low
    self.high = (2.0 if is_float else 10) if high is None else high
    self.grad = grad and is_float


class Case:
  """One op run: |op| names the C++ lambda (tests/golden/ops_<family>.cc) and |fn| is PyTorch's version.

  fn(*inputs, **args) returns a tensor or a tuple of tensors. args are passed to both sides.
  atol/rtol: forward tolerance; gatol/grtol: gradient tolerance (tinygrad's test_ops defaults).
  out_dtype: expected tinygrad dtype name(s) where tinygrad differs from PyTorch; None = PyTorch's,
  "-" = not checked. grad=False skips gradients (non-differentiable ops). fd=True adds a float64
  finite-difference check of the C++ gradient. ref64=False computes the reference in the input dtype.
  skip: a reason; the data is still written, and the C++ test reports the case as skipped.
  """

  def __init__(self, name, op, inputs, fn, args=None, atol=1e-6, rtol=1e-3, gatol=1e-4, grtol=1e-3,
               out_dtype=None, grad=True, fd=False, ref64=True, skip=None):
    self.name, self.op, self.inputs, self.fn, self.args = name, op, list(inputs), fn, dict(args or {})
    self.atol, self.rtol, self.gatol, self.grtol = atol, rtol, gatol, grtol
    self.out_dtype, self.grad, self.fd, self.ref64 = out_dtype, grad, fd, ref64
    self.skip = skip  # a reason: the C++ test reports the case as skipped (a known bug elsewhere)


def _fmt_value(v):
  if isinstance(v, bool): return "true" if v else "false"
  if isinstance(v, (int, float)): return repr(v)
  if isinstance(v, str):
    assert v and " " not in v, f"string args must be non-empty without spaces: {v!r}"
    return v
  if isinstance(v, (list, tuple)):
    if not v: return "-"
    if isinstance(v[0], (list, tuple)): return ",".join(f"{a}:{b}" for a, b in v)
    return ",".join(_fmt_value(x) for x in v)
  raise TypeError(f"unsupported arg value {v!r}")


def _shape_str(shape): return ",".join(str(d) for d in shape) if len(shape) else "-"


def _make_input(spec, gen):
  if spec.values is not None:
    t = torch.tensor(spec.values, dtype=torch.float64).reshape(spec.shape)
  elif spec.dtype in FLOAT_DTYPES:
    t = torch.rand(spec.shape, generator=gen, dtype=torch.float64) * (spec.high - spec.low) + spec.low
  elif spec.dtype == "bool":
    t = torch.randint(0, 2, spec.shape, generator=gen).to(torch.float64)
  else:
    t = torch.randint(int(spec.low), int(spec.high), spec.shape, generator=gen).to(torch.float64)
  return t.to(TORCH_DTYPES[spec.dtype])


def _apply_view(t, view):
  for kind, v in view:
    if kind == "permute": t = t.permute(*v)
    elif kind == "expand": t = t.expand(*v)
    elif kind == "reshape": t = t.reshape(*v)
    elif kind == "flip": t = t.flip(v)
    elif kind == "shrink": t = t[tuple(slice(a, b) for a, b in v)]
    else: raise ValueError(f"unknown view {kind}")
  return t


def _as_tuple(out): return tuple(out) if isinstance(out, (tuple, list)) else (out,)


class Writer:
  """Accumulates the text index and the little-endian blob of one family file."""

  def __init__(self):
    self.lines, self.blob = ["TGGOLDEN 1"], bytearray()

  def put(self, t, enc=None):
    """Appends tensor |t| (any dtype) and returns 'enc offset count'."""
    t = t.detach().contiguous().reshape(-1)
    if enc is None: enc = "f8" if t.dtype == torch.float64 else "f4" if t.is_floating_point() else "i8"
    if enc == "f4": data = t.to(torch.float32).numpy().astype("<f4").tobytes()
    elif enc == "f8": data = t.to(torch.float64).numpy().astype("<f8").tobytes()
    else: data = t.to(torch.int64).numpy().astype("<i8").tobytes()
    offset = len(self.blob)
    self.blob += data
    return f"{enc} {offset} {t.numel()}"

  def write(self, path):
    with open(path, "wb") as f:
      f.write(("\n".join(self.lines) + f"\nBLOB {len(self.blob)}\n").encode())
      f.write(bytes(self.blob))


def run_case(family, case, writer):
  gen = torch.Generator().manual_seed(zlib.crc32(f"{family}/{case.name}".encode()))
  bases = [_make_input(s, gen) for s in case.inputs]
  # values: in the input dtypes (dtype semantics); reference: floats upcast to float64 (accuracy)
  try:
    outs = _as_tuple(case.fn(*[_apply_view(b, s.view) for b, s in zip(bases, case.inputs)], **case.args))
  except RuntimeError:  # CPU PyTorch lacks many half kernels: run in float32, report half dtypes
    half = [b.dtype for b in bases if b.dtype in (torch.float16, torch.bfloat16)]
    ups = [b.float() if b.dtype in (torch.float16, torch.bfloat16) else b for b in bases]
    outs = _as_tuple(case.fn(*[_apply_view(b, s.view) for b, s in zip(ups, case.inputs)], **case.args))
    outs = tuple(o.to(half[0]) if half and o.dtype == torch.float32 else o for o in outs)
  leaves = [b.to(torch.float64) if b.is_floating_point() and case.ref64 else b.clone() for b in bases]
  for leaf, s in zip(leaves, case.inputs): leaf.requires_grad_(s.grad and case.grad)
  ref = _as_tuple(case.fn(*[_apply_view(l, s.view) for l, s in zip(leaves, case.inputs)], **case.args))
  assert len(ref) == len(outs)
  out_dtypes = case.out_dtype if isinstance(case.out_dtype, (list, tuple)) else [case.out_dtype] * len(outs)
  w = writer
  w.lines.append(f"case {case.name} {case.op} {case.atol!r} {case.rtol!r} {case.gatol!r} {case.grtol!r} "
                 f"{int(case.fd)}")
  if case.skip: w.lines.append(f"skip {case.skip.replace(' ', '_')}")
  for k, v in case.args.items():
    if v is not None: w.lines.append(f"arg {k} {_fmt_value(v)}")
  for b, s in zip(bases, case.inputs):
    enc = "f8" if s.dtype == "float64" else "f4" if s.dtype in FLOAT_DTYPES else "i8"
    w.lines.append(f"in {s.dtype} {int(s.grad and case.grad)} {_shape_str(b.shape)} {w.put(b, enc)}")
    for kind, v in s.view: w.lines.append(f"view {kind} {_fmt_value(v)}")
  upstream, diff_outs = [], []
  for o, r, dt in zip(outs, ref, out_dtypes):
    name = dt or DTYPE_NAMES[o.dtype]
    value = r.to(o.dtype) if not o.is_floating_point() else r
    up = "- 0 0"
    if case.grad and r.requires_grad and r.is_floating_point():
      u = torch.randn(r.shape, generator=gen, dtype=torch.float64).to(torch.float32).to(torch.float64)
      upstream.append(u), diff_outs.append(r)
      up = w.put(u, "f4")
    w.lines.append(f"out {name} {_shape_str(o.shape)} {w.put(value)} {up}")
  if diff_outs:
    loss = sum((r * u).sum() for r, u in zip(diff_outs, upstream))
    targets = [l for l in leaves if l.requires_grad]
    grads = torch.autograd.grad(loss, targets, allow_unused=True)
    gi = iter(grads)
    for i, l in enumerate(leaves):
      if not l.requires_grad: continue
      g = next(gi)
      w.lines.append(f"grad {i} {w.put(torch.zeros_like(l) if g is None else g, 'f4')}")
  w.lines.append("end")
