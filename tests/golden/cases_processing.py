"""Processing ops: matmul, conv, pools, sort, ... (format: README.md)."""
import torch
import torch.nn.functional as F

from golden_lib import Case, In

FAMILY = "processing"
CASES = [
    Case("matmul_2d", "matmul", [In((3, 4)), In((4, 5))], torch.matmul, fd=True),
    Case("matmul_batched_bcast", "matmul", [In((2, 3, 4)), In((4, 2))], torch.matmul),
    Case("matmul_vec", "matmul", [In((4,)), In((4, 3))], torch.matmul),
    Case("matmul_transposed", "matmul", [In((4, 3), view=[("permute", [1, 0])]), In((4, 2))], torch.matmul),
]


# ---- conv, pools, interpolate, einsum, sort. Args are for the C++ side; the lambdas close over theirs.
def flat_pads(pads):  # (before, after) per spatial axis -> PyTorch's flat order, last axis first
  return [v for b, a in reversed(pads) for v in (b, a)]


def torch_conv(x, w, b=None, groups=1, stride=1, dilation=1, pads=None):
  n = x.ndim - 2
  if pads: x = F.pad(x, flat_pads(pads))
  return [F.conv1d, F.conv2d, F.conv3d][n - 1](x, w, b, stride, 0, dilation, groups)


PART_B = [
    Case("conv1d_asym_pad", "conv", [In((2, 3, 7)), In((4, 3, 3))],
         lambda x, w: torch_conv(x, w, stride=2, pads=[(1, 2)]),
         args={"groups": 1, "stride": [2], "dilation": [1], "padding": flat_pads([(1, 2)])}, fd=True),
    Case("conv2d_groups_stride_dilation", "conv", [In((1, 4, 6, 5)), In((6, 2, 3, 2))],
         lambda x, w: torch_conv(x, w, groups=2, stride=(1, 2), dilation=(2, 1), pads=[(1, 1), (0, 2)]),
         args={"groups": 2, "stride": [1, 2], "dilation": [2, 1], "padding": flat_pads([(1, 1), (0, 2)])}),
    Case("conv2d_bias", "conv_bias", [In((2, 2, 5, 5)), In((3, 2, 3, 3)), In((3,))],
         lambda x, w, b: torch_conv(x, w, b, pads=[(1, 1), (1, 1)]),
         args={"groups": 1, "stride": [1], "dilation": [1], "padding": [1]}),
    Case("conv3d_depthwise", "conv", [In((1, 2, 4, 4, 3)), In((2, 1, 2, 2, 2))],
         lambda x, w: torch_conv(x, w, groups=2, pads=[(0, 0), (1, 0), (0, 1)]),
         args={"groups": 2, "stride": [1], "dilation": [1], "padding": flat_pads([(0, 0), (1, 0), (0, 1)])}),
    Case("conv_transpose2d", "conv_transpose", [In((1, 4, 3, 4)), In((4, 3, 3, 2))],
         lambda x, w: F.conv_transpose2d(x, w, None, (2, 1), (1, 0), (1, 0), 2, (1, 1)),
         args={"groups": 2, "stride": [2, 1], "padding": [1, 0], "output_padding": [1, 0], "dilation": [1, 1]}),
    Case("max_pool2d", "max_pool", [In((2, 2, 5, 5))], lambda x: F.max_pool2d(x, 2),
         args={"kernel": [2, 2], "stride": [], "padding": [0], "ceil_mode": False}),
    Case("max_pool2d_pad_stride_ceil", "max_pool", [In((1, 2, 6, 7))], lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True),
         args={"kernel": [3, 3], "stride": [2], "padding": [1], "ceil_mode": True}),
    Case("max_pool2d_indices", "max_pool_indices", [In((1, 2, 4, 6))],
         lambda x: tuple(y if y.dtype != torch.int64 else y.int() for y in F.max_pool2d(x, 2, return_indices=True)),
         args={"kernel": [2, 2]}),
    Case("avg_pool2d", "avg_pool", [In((2, 2, 5, 5))], lambda x: F.avg_pool2d(x, 2),
         args={"kernel": [2, 2], "stride": [], "padding": [0], "ceil_mode": False, "count_include_pad": True}),
    Case("avg_pool2d_pad_exclude", "avg_pool", [In((1, 1, 5, 6))],
         lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
         args={"kernel": [3, 3], "stride": [2], "padding": [1], "ceil_mode": False, "count_include_pad": False}),
    Case("avg_pool2d_ceil", "avg_pool", [In((1, 1, 5, 5))], lambda x: F.avg_pool2d(x, 2, ceil_mode=True),
         args={"kernel": [2, 2], "stride": [], "padding": [0], "ceil_mode": True, "count_include_pad": True}),
    Case("interpolate_nearest", "interpolate", [In((1, 2, 3, 4))], lambda x: F.interpolate(x, (5, 7), mode="nearest"),
         args={"size": [5, 7], "mode": "nearest", "align_corners": False}),
    Case("interpolate_bilinear", "interpolate", [In((1, 2, 3, 4))],
         lambda x: F.interpolate(x, (5, 7), mode="bilinear", align_corners=False),
         args={"size": [5, 7], "mode": "linear", "align_corners": False}, fd=True),
    Case("interpolate_bilinear_corners", "interpolate", [In((1, 1, 4, 3))],
         lambda x: F.interpolate(x, (2, 6), mode="bilinear", align_corners=True),
         args={"size": [2, 6], "mode": "linear", "align_corners": True}),
    Case("einsum_matmul", "einsum2", [In((3, 4)), In((4, 5))], lambda a, b: torch.einsum("ij,jk->ik", a, b),
         args={"formula": "ij,jk->ik"}),
    Case("einsum_batch_ellipsis", "einsum2", [In((2, 3, 4)), In((2, 4, 3))],
         lambda a, b: torch.einsum("...ij,...jk->...ik", a, b), args={"formula": "...ij,...jk->...ik"}),
    Case("einsum_trace_outer", "einsum2", [In((3, 3)), In((2,))], lambda a, b: torch.einsum("iij->j", a[..., None] * b),
         args={"formula": "ii,j->j"}, grad=False),
    Case("sort_desc", "sort", [In((3, 7))],
         lambda x: tuple(y if y.dtype != torch.int64 else y.int() for y in torch.sort(x, 1, True)),
         args={"dim": 1, "descending": True}, grad=False),  # backward of a 3-stage network times out, see report
    Case("sort_axis0_permuted", "sort", [In((5, 3), view=[("permute", [1, 0])])],
         lambda x: tuple(y if y.dtype != torch.int64 else y.int() for y in torch.sort(x, 0)),
         args={"dim": 0, "descending": False}, grad=False),
    Case("topk", "topk", [In((2, 9))],
         lambda x: tuple(y if y.dtype != torch.int64 else y.int() for y in torch.topk(x, 3, 1)),
         args={"k": 3, "dim": 1}, grad=False),
]
for _c in PART_B: _c.fn = (lambda f: lambda *xs, **kw: f(*xs))(_c.fn)
CASES += PART_B
