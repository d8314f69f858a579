"""Creation ops. Ops without inputs; *_like ops take one input for its shape/dtype."""
import torch

from golden_lib import Case, In

FAMILY = "creation"
CASES = [
    Case("zeros", "zeros", [], lambda shape: torch.zeros(shape), args={"shape": [2, 3]}, grad=False),
    Case("ones_scalar", "ones", [], lambda shape: torch.ones(shape), args={"shape": []}, grad=False),
    Case("full_float", "full", [], lambda shape, v: torch.full(shape, v), args={"shape": [3, 1], "v": 2.5}, grad=False),
    Case("full_int", "full", [], lambda shape, v: torch.full(shape, v, dtype=torch.int32), args={"shape": [4], "v": 7},
         grad=False),
    Case("full_empty", "full", [], lambda shape, v: torch.full(shape, v), args={"shape": [0, 2], "v": 1.0},
         grad=False),
    Case("arange_stop", "arange", [], lambda start, stop, step: torch.arange(start, stop, step, dtype=torch.int32),
         args={"start": 0, "stop": 5, "step": 1}, grad=False),
    Case("arange_negative_step", "arange", [],
         lambda start, stop, step: torch.arange(start, stop, step, dtype=torch.int32),
         args={"start": 10, "stop": 1, "step": -3}, grad=False),
    Case("arange_float", "arange", [], lambda start, stop, step: torch.arange(start, stop, step),
         args={"start": 0.5, "stop": 3.0, "step": 0.25}, grad=False),
    Case("arange_empty", "arange", [], lambda start, stop, step: torch.arange(start, stop, step, dtype=torch.int32),
         args={"start": 5, "stop": 5, "step": 1}, grad=False),
    Case("linspace", "linspace", [], lambda start, stop, steps: torch.linspace(start, stop, steps),
         args={"start": -1.0, "stop": 2.0, "steps": 7}, grad=False),
    Case("linspace_one", "linspace", [], lambda start, stop, steps: torch.linspace(start, stop, steps),
         args={"start": 3.0, "stop": 5.0, "steps": 1}, grad=False),
    Case("eye_square", "eye", [], lambda n, m: torch.eye(n, m), args={"n": 3, "m": 3}, grad=False),
    Case("eye_rect", "eye", [], lambda n, m: torch.eye(n, m), args={"n": 2, "m": 4}, grad=False),
    Case("zeros_like", "zeros_like", [In((2, 3))], torch.zeros_like, grad=False),
    Case("ones_like_int", "ones_like", [In((4,), "int32")], torch.ones_like, grad=False),
    Case("full_like", "full_like", [In((2, 2))], lambda x, v: torch.full_like(x, v), args={"v": -3.5}, grad=False),
]
