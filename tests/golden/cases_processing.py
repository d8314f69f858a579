"""Processing ops: matmul, conv, pools, sort, ... (issue 3 part B adds its cases here; format: README.md)."""
import torch

from golden_lib import Case, In

FAMILY = "processing"
CASES = [
    Case("matmul_2d", "matmul", [In((3, 4)), In((4, 5))], torch.matmul, fd=True),
    Case("matmul_batched_bcast", "matmul", [In((2, 3, 4)), In((4, 2))], torch.matmul),
    Case("matmul_vec", "matmul", [In((4,)), In((4, 3))], torch.matmul),
    Case("matmul_transposed", "matmul", [In((4, 3), view=[("permute", [1, 0])]), In((4, 2))], torch.matmul),
]
