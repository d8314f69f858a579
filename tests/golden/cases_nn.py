"""NN functional ops and losses."""
import torch
import torch.nn.functional as F

from golden_lib import Case, In

FAMILY = "nn"


def layernorm(x, axis, eps):
  dims = tuple(axis)
  mean = x.mean(dim=dims, keepdim=True)
  var = ((x - mean) ** 2).mean(dim=dims, keepdim=True)
  return (x - mean) / torch.sqrt(var + eps)


def batchnorm(x, w, b, mean, invstd, axis=1):
  shape = [1] * x.ndim
  shape[axis] = x.shape[axis]
  return (x - mean.reshape(shape)) * w.reshape(shape) * invstd.reshape(shape) + b.reshape(shape)


def sdpa(q, k, v, attn_mask=None, is_causal=False):
  """PyTorch 2's sdpa, spelled out (Debian's torch 1.13 lacks it)."""
  qk = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
  if is_causal: attn_mask = torch.ones(qk.shape[-2:], dtype=torch.bool).tril()
  if attn_mask is not None:
    qk = qk + (torch.zeros_like(attn_mask, dtype=qk.dtype).masked_fill(~attn_mask, float("-inf"))
               if attn_mask.dtype == torch.bool else attn_mask)
  return qk.softmax(-1) @ v


def sparse_ce(logits, y, ignore_index, label_smoothing, reduction):
  c = logits.shape[-1]
  return F.cross_entropy(logits.reshape(-1, c), y.reshape(-1).long(), ignore_index=ignore_index,
                         label_smoothing=label_smoothing, reduction=reduction).reshape(
                             y.shape if reduction == "none" else ())


CASES = [
    Case("linear_bias", "linear", [In((4, 3)), In((3, 5)), In((5,))], lambda x, w, b: x @ w + b, fd=True),
    Case("linear_no_bias", "linear_nobias", [In((2, 4, 3)), In((3, 5))], lambda x, w: x @ w),
    Case("linear_1d_weight", "linear_nobias", [In((4, 3)), In((3,))], lambda x, w: x * w),
    Case("linear_transposed_weight", "linear", [In((4, 3)), In((5, 3), view=[("permute", [1, 0])]), In((5,))],
         lambda x, w, b: x @ w + b),
    Case("layernorm_last", "layernorm", [In((3, 6))], layernorm, args={"axis": [-1], "eps": 1e-5}, fd=True),
    Case("layernorm_two_axes", "layernorm", [In((2, 3, 4))], layernorm, args={"axis": [1, 2], "eps": 1e-5}),
    Case("layernorm_eps", "layernorm", [In((4, 5))], layernorm, args={"axis": [-1], "eps": 0.1}),
    Case("layernorm_vs_torch", "layernorm", [In((3, 8))], lambda x, axis, eps: F.layer_norm(x, (8,), eps=eps),
         args={"axis": [-1], "eps": 1e-5}),
    Case("batchnorm_nchw", "batchnorm", [In((2, 3, 2, 2)), In((3,)), In((3,)), In((3,)), In((3,), low=0.5, high=2)],
         batchnorm, fd=True),
    Case("batchnorm_nc", "batchnorm", [In((4, 5)), In((5,)), In((5,)), In((5,)), In((5,), low=0.5, high=2)],
         batchnorm),
    Case("batchnorm_axis_last", "batchnorm", [In((4, 3)), In((3,)), In((3,)), In((3,)), In((3,), low=0.5, high=2)],
         lambda *a: batchnorm(*a, axis=1)),
    Case("dropout_eval_identity", "dropout", [In((3, 4))], lambda x, p: x, args={"p": 0.5}),
    Case("dropout_p0", "dropout", [In((3, 4))], lambda x, p: x, args={"p": 0.0}),
    Case("sdpa", "sdpa", [In((2, 3, 4)), In((2, 5, 4)), In((2, 5, 6))], sdpa, fd=True),
    Case("sdpa_4d", "sdpa", [In((1, 2, 3, 4)), In((1, 2, 3, 4)), In((1, 2, 3, 4))], sdpa),
    Case("sdpa_causal", "sdpa_causal", [In((2, 4, 3)), In((2, 4, 3)), In((2, 4, 5))],
         lambda q, k, v: sdpa(q, k, v, is_causal=True)),
    Case("sdpa_bool_mask", "sdpa_mask", [In((2, 3, 4)), In((2, 5, 4)), In((2, 5, 4)), In((3, 5), "bool",
                                                                                       values=[1, 0, 1, 1, 0] * 3)],
         lambda q, k, v, m: sdpa(q, k, v, attn_mask=m)),
    Case("sdpa_float_mask", "sdpa_mask", [In((2, 3, 4)), In((2, 5, 4)), In((2, 5, 4)), In((3, 5))],
         lambda q, k, v, m: sdpa(q, k, v, attn_mask=m)),
]
for red in ["mean", "sum", "none"]:
  CASES += [
      Case(f"cross_entropy_indices_{red}", "cross_entropy", [In((4, 5)), In((4,), "int32", low=0, high=5)],
           lambda x, y, reduction, label_smoothing: F.cross_entropy(x, y.long(), reduction=reduction,
                                                                    label_smoothing=label_smoothing),
           args={"reduction": red, "label_smoothing": 0.0}, fd=red == "mean"),
      Case(f"cross_entropy_smoothing_{red}", "cross_entropy", [In((4, 5)), In((4,), "int32", low=0, high=5)],
           lambda x, y, reduction, label_smoothing: F.cross_entropy(x, y.long(), reduction=reduction,
                                                                    label_smoothing=label_smoothing),
           args={"reduction": red, "label_smoothing": 0.2}),
      Case(f"sparse_ce_{red}", "sparse_ce", [In((2, 3, 5)), In((2, 3), "int32", low=0, high=5)], sparse_ce,
           args={"ignore_index": -1, "label_smoothing": 0.0, "reduction": red}),
      Case(f"sparse_ce_ignore_{red}", "sparse_ce", [In((6, 4)), In((6,), "int32", values=[0, 2, -100, 3, 1, -100])],
           sparse_ce, args={"ignore_index": -100, "label_smoothing": 0.1, "reduction": red}),
      Case(f"bce_{red}", "binary_crossentropy", [In((3, 4), low=0.05, high=0.95), In((3, 4), low=0, high=1)],
           lambda x, y, reduction: F.binary_cross_entropy(x, y, reduction=reduction), args={"reduction": red},
           fd=red == "sum"),
      Case(f"bce_logits_{red}", "binary_crossentropy_logits", [In((3, 4), low=-4, high=4), In((3, 4), low=0, high=1)],
           lambda x, y, reduction: F.binary_cross_entropy_with_logits(x, y, reduction=reduction),
           args={"reduction": red}),
      Case(f"nll_loss_{red}", "nll_loss", [In((4, 5), low=-3, high=0), In((4,), "int32", low=0, high=5)],
           lambda x, y, reduction: F.nll_loss(x, y.long(), reduction=reduction), args={"reduction": red}),
  ]
CASES += [
    Case("cross_entropy_probabilities", "cross_entropy", [In((3, 4)), In((3, 4), low=0, high=1)],
         lambda x, y, reduction, label_smoothing: F.cross_entropy(x, y, reduction=reduction,
                                                                  label_smoothing=label_smoothing),
         args={"reduction": "mean", "label_smoothing": 0.0}),
    Case("cross_entropy_1d", "cross_entropy", [In((5,)), In((), "int32", low=0, high=5)],
         lambda x, y, reduction, label_smoothing: F.cross_entropy(x, y.long(), reduction=reduction),
         args={"reduction": "mean", "label_smoothing": 0.0}),
    Case("cross_entropy_spatial", "cross_entropy", [In((2, 4, 3)), In((2, 3), "int32", low=0, high=4)],
         lambda x, y, reduction, label_smoothing: F.cross_entropy(x, y.long(), reduction=reduction),
         args={"reduction": "mean", "label_smoothing": 0.0}),
    Case("bce_logits_pos_weight", "bce_logits_pos_weight", [In((3, 4), low=-4, high=4), In((3, 4), low=0, high=1),
                                                             In((4,), low=0.5, high=2, grad=False)],
         lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, pos_weight=w)),
    Case("nll_loss_weight", "nll_loss_weight", [In((4, 5), low=-3, high=0), In((4,), "int32", low=0, high=5),
                                                In((5,), low=0.5, high=2, grad=False)],
         lambda x, y, w, reduction: F.nll_loss(x, y.long(), weight=w, reduction=reduction), args={"reduction": "mean"}),
    Case("nll_loss_ignore", "nll_loss_ignore", [In((5, 3), low=-3, high=0), In((5,), "int32", values=[0, 2, 1, 2, 0])],
         lambda x, y, reduction, ignore_index: F.nll_loss(x, y.long(), ignore_index=ignore_index, reduction=reduction),
         args={"reduction": "mean", "ignore_index": 2}),
    Case("nll_loss_spatial", "nll_loss", [In((2, 3, 4), low=-3, high=0), In((2, 4), "int32", low=0, high=3)],
         lambda x, y, reduction: F.nll_loss(x, y.long(), reduction=reduction), args={"reduction": "sum"}),
]
