"""Movement and indexing ops (format: README.md)."""
import torch
import torch.nn.functional as F

from golden_lib import Case, In

FAMILY = "movement"
CASES = [
    Case("reshape", "reshape", [In((2, 6))], lambda x, shape: x.reshape(shape), args={"shape": [3, 4]}),
    Case("permute", "permute", [In((2, 3, 4))], lambda x, order: x.permute(order), args={"order": [2, 0, 1]}),
    Case("expand", "expand", [In((3, 1))], lambda x, shape: x.expand(shape), args={"shape": [2, 3, 4]}),
    Case("flip", "flip", [In((3, 4))], lambda x, axes: x.flip(axes), args={"axes": [0, 1]}),
    Case("transpose", "transpose", [In((3, 4))], lambda x: x.t()),
]


# ---- high-level movement and indexing. The lambdas close over their arguments (wrapped at the
# end to ignore the args, which are for the C++ side). Index tensors are int32 (tinygrad's default int).
def torch_pad(x, pads, mode):  # pads: (before, after) per axis, first axis first
  flat = [v for b, a in reversed(pads) for v in (b, a)]
  if mode == "constant": return F.pad(x, flat)
  return F.pad(x[None, None], flat, mode=mode)[0, 0]  # torch pads the trailing axes of (N, C, *spatial)


PART_B = [
    Case("cat_axis1", "cat2", [In((2, 3)), In((2, 4))], lambda a, b: torch.cat([a, b], 1), args={"dim": 1}, fd=True),
    Case("cat_axis0_permuted", "cat2", [In((3, 2), view=[("permute", [1, 0])]), In((1, 3))],
         lambda a, b: torch.cat([a, b], 0), args={"dim": 0}),
    Case("cat_empty_piece", "cat2", [In((2, 3)), In((0, 3), grad=False)], lambda a, b: torch.cat([a, b], 0),
         args={"dim": 0}),
    Case("stack_axis1", "stack2", [In((2, 3)), In((2, 3))], lambda a, b: torch.stack([a, b], 1), args={"dim": 1}),
    Case("stack_scalars", "stack2", [In(()), In(())], lambda a, b: torch.stack([a, b], 0), args={"dim": 0}),
    Case("repeat", "repeat", [In((2, 3))], lambda x: x.repeat(2, 1, 3), args={"repeats": [2, 1, 3]}, fd=True),
    Case("repeat_interleave", "repeat_interleave", [In((2, 3))], lambda x: x.repeat_interleave(2, 1),
         args={"repeats": 2, "dim": 1}),
    Case("roll_two_axes", "roll", [In((3, 4))], lambda x: x.roll((1, -2), (0, 1)),
         args={"shifts": [1, -2], "dims": [0, 1]}),
    Case("tril_neg", "tril", [In((4, 5))], lambda x: x.tril(-1), args={"diagonal": -1}),
    Case("triu_batched_expanded", "triu", [In((1, 3, 3), view=[("expand", [2, 3, 3])])], lambda x: x.triu(1),
         args={"diagonal": 1}),
    Case("diagonal_offset", "diagonal", [In((3, 4, 2))], lambda x: x.diagonal(1, 0, 1),
         args={"offset": 1, "dim1": 0, "dim2": 1}, fd=True),
    Case("diag", "diag", [In((4,))], torch.diag),
    Case("unfold", "unfold", [In((2, 9))], lambda x: x.unfold(1, 3, 2), args={"dim": 1, "size": 3, "step": 2}),
    Case("flatten_mid", "flatten", [In((2, 3, 4, 5))], lambda x: x.flatten(1, 2), args={"start": 1, "end": 2}),
    Case("squeeze_unsqueeze", "squeeze_unsqueeze", [In((2, 1, 3))], lambda x: x.squeeze(1).unsqueeze(-1)),
]
for mode in ["constant", "reflect", "replicate", "circular"]:
  PART_B.append(Case(f"pad_{mode}", "pad_mode", [In((3, 4))], lambda x, mode=mode: torch_pad(x, [(1, 2), (2, 1)], mode),
                     args={"pads": [(1, 2), (2, 1)], "mode": mode}, fd=mode == "reflect"))
PART_B += [
    Case("pad_reflect_crop", "pad_mode", [In((2, 5))], lambda x: torch_pad(x, [(0, 0), (-1, 2)], "reflect"),
         args={"pads": [(0, 0), (-1, 2)], "mode": "reflect"}),
    # getitem_basic: the C++ index list of each form is in ops_movement.cc
    Case("getitem_step_slices", "getitem_basic", [In((5, 6))], lambda x: x[1:5:2].flip(1)[:, ::2], args={"form": 0},
         fd=True),
    Case("getitem_int_newaxis_ellipsis", "getitem_basic", [In((3, 4, 5))], lambda x: x[None, ..., -1, 1:3],
         args={"form": 1}),
    Case("getitem_tensor", "getitem_tensor", [In((4, 5)), In((3,), "int32", low=-4, high=4)],
         lambda x, i: x[i.long()]),
    Case("getitem_two_tensors", "getitem_two", [In((4, 5)), In((2, 3), "int32", high=4), In((3,), "int32", high=5)],
         lambda x, i, j: x[i.long(), j.long()], fd=True),
    Case("getitem_tensors_split_by_slice", "getitem_split", [In((3, 4, 5)), In((2,), "int32", high=3),
                                                             In((2,), "int32", high=5)],
         lambda x, i, j: x[i.long(), :, j.long()]),
    Case("gather_axis1", "gather", [In((3, 4)), In((3, 6), "int32", high=4)],
         lambda x, i: torch.gather(x, 1, i.long()), args={"dim": 1}, fd=True),
    Case("gather_axis0_small_index", "gather", [In((4, 3)), In((2, 2), "int32", high=4)],
         lambda x, i: torch.gather(x, 0, i.long()), args={"dim": 0}),
    Case("scatter_unique", "scatter", [In((4, 3)), In((2, 3), values=[0, 1, 2, 3, 3, 0], dtype="int32"), In((2, 3))],
         lambda x, i, s: x.scatter(0, i.long(), s), args={"dim": 0}),
]
for red in ["sum", "prod", "mean", "amax", "amin"]:
  for include in [True, False]:
    PART_B.append(Case(f"scatter_reduce_{red}_{'self' if include else 'noself'}", "scatter_reduce",
                       [In((4, 3)), In((2, 3), values=[0, 1, 0, 3, 3, 0], dtype="int32"), In((2, 3))],
                       lambda x, i, s, red=red, include=include: x.scatter_reduce(0, i.long(), s, red,
                                                                                  include_self=include),
                       args={"dim": 0, "reduce": red, "include_self": include}))
for _c in PART_B: _c.fn = (lambda f: lambda *xs, **kw: f(*xs))(_c.fn)
CASES += PART_B
