#!/usr/bin/python3
"""Writes the checked-in references of tests/nn: optimizer trajectories and learning-rate schedules from
PyTorch 1.13 (data/optim_golden.json), and a tiny safetensors file written by hand (data/interop.safetensors).

Run from anywhere: /usr/bin/python3 tests/nn/make_optim_golden.py (Debian's python3-torch). LAMB and LARS
have no PyTorch class, so they are written here in torch ops from their papers, following tinygrad's rules.
"""
import json
import math
import os
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 8


def problem():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(8, 4, generator=g, dtype=torch.float64)
    y = torch.randn(8, 3, generator=g, dtype=torch.float64)
    w = torch.randn(4, 3, generator=g, dtype=torch.float64) * 0.5
    b = torch.randn(3, generator=g, dtype=torch.float64) * 0.1
    return x, y, w, b


def loss_fn(x, y, w, b):
    return ((x @ w + b - y) ** 2).mean()


class Lars(torch.optim.Optimizer):
    """tinygrad's LARS (classic momentum, trust coefficient tcoef)."""

    def __init__(self, params, lr, momentum, weight_decay, nesterov, classic, tcoef):
        super().__init__(params, dict(lr=lr, momentum=momentum, wd=weight_decay, nesterov=nesterov,
                                      classic=classic, tcoef=tcoef))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, mom, wd = group["lr"], group["momentum"], group["wd"]
            for p in group["params"]:
                g = p.grad.clone()
                r = torch.tensor(1.0, dtype=p.dtype)
                if group["tcoef"] != 0:
                    r1, r2 = p.norm(), g.norm()
                    r = torch.where(r1 > 0, torch.where(r2 > 0, group["tcoef"] * r1 / (r2 + wd * r1), r), r)
                if wd > 0:
                    g = g + wd * p
                if group["classic"]:
                    g = g * r * lr
                if mom:
                    buf = self.state[p].setdefault("b", torch.zeros_like(p))
                    buf.mul_(mom).add_(g)
                    g = g + mom * buf if group["nesterov"] else buf.clone()
                if not group["classic"]:
                    g = g * r * lr
                p.sub_(g)


class Lamb(torch.optim.Optimizer):
    """LAMB (arXiv:1904.00962) as tinygrad computes it: Adam step plus decoupled decay, times |w|/|step|."""

    def __init__(self, params, lr, b1, b2, eps, weight_decay):
        super().__init__(params, dict(lr=lr, b1=b1, b2=b2, eps=eps, wd=weight_decay))
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        for group in self.param_groups:
            b1, b2 = group["b1"], group["b2"]
            for p in group["params"]:
                st = self.state[p]
                m = st.setdefault("m", torch.zeros_like(p))
                v = st.setdefault("v", torch.zeros_like(p))
                m.mul_(b1).add_((1 - b1) * p.grad)
                v.mul_(b2).add_((1 - b2) * p.grad * p.grad)
                up = (m / (1 - b1 ** self.t)) / ((v / (1 - b2 ** self.t)).sqrt() + group["eps"]) + group["wd"] * p
                r1, r2 = p.norm(), up.norm()
                r = torch.where(r1 > 0, torch.where(r2 > 0, r1 / r2, torch.ones_like(r1)), torch.ones_like(r1))
                p.sub_(group["lr"] * r * up)


OPTIMIZERS = [
    ("sgd", dict(optimizer="SGD", lr=0.1), lambda p: torch.optim.SGD(p, lr=0.1)),
    ("sgd_momentum", dict(optimizer="SGD", lr=0.05, momentum=0.9),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    ("sgd_nesterov_wd", dict(optimizer="SGD", lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True),
     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True)),
    ("adam", dict(optimizer="Adam", lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01)),
    ("adam_betas", dict(optimizer="Adam", lr=0.02, b1=0.8, b2=0.99, eps=1e-6),
     lambda p: torch.optim.Adam(p, lr=0.02, betas=(0.8, 0.99), eps=1e-6)),
    ("adamw", dict(optimizer="AdamW", lr=0.01, weight_decay=0.1),
     lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1)),
    ("lamb", dict(optimizer="LAMB", lr=0.01, weight_decay=0.01),
     lambda p: Lamb(p, lr=0.01, b1=0.9, b2=0.999, eps=1e-6, weight_decay=0.01)),
    ("lars", dict(optimizer="LARS", lr=0.1, momentum=0.9, weight_decay=1e-4),
     lambda p: Lars(p, lr=0.1, momentum=0.9, weight_decay=1e-4, nesterov=False, classic=True, tcoef=0.001)),
    ("lars_popular", dict(optimizer="LARS", lr=0.5, momentum=0.5, weight_decay=1e-3, classic=False, tcoef=0.01),
     lambda p: Lars(p, lr=0.5, momentum=0.5, weight_decay=1e-3, nesterov=False, classic=False, tcoef=0.01)),
]


def trajectory(make):
    x, y, w, b = problem()
    w, b = w.clone().requires_grad_(True), b.clone().requires_grad_(True)
    opt = make([w, b])
    steps = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss_fn(x, y, w, b).backward()
        opt.step()
        steps.append({"w": w.detach().flatten().tolist(), "b": b.detach().flatten().tolist()})
    return steps


SCHEDULES = [
    ("step", dict(schedule="StepLR", step_size=7, gamma=0.5),
     lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    ("multistep", dict(schedule="MultiStepLR", milestones=[5, 12], gamma=0.3),
     lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[5, 12], gamma=0.3)),
    ("cosine", dict(schedule="CosineAnnealingLR", t_max=10, eta_min=0.001),
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=0.001)),
    ("onecycle_cos", dict(schedule="OneCycleLR", max_lr=0.5, total_steps=30, pct_start=0.3, anneal="cos"),
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.5, total_steps=30, cycle_momentum=False)),
    ("onecycle_linear", dict(schedule="OneCycleLR", max_lr=0.2, total_steps=30, pct_start=0.25, anneal="linear",
                             div_factor=10.0, final_div_factor=100.0),
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.2, total_steps=30, pct_start=0.25,
                                                   anneal_strategy="linear", div_factor=10.0, final_div_factor=100.0,
                                                   cycle_momentum=False)),
]
SCHEDULE_LR, SCHEDULE_STEPS = 0.1, 29  # OneCycleLR allows total_steps - 1 steps after construction


def schedule(make):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=SCHEDULE_LR)
    sched = make(opt)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(SCHEDULE_STEPS):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


def write_golden():
    x, y, w, b = problem()
    golden = {
        "problem": {"x": x.flatten().tolist(), "y": y.flatten().tolist(), "w": w.flatten().tolist(),
                    "b": b.flatten().tolist()},
        "optimizers": [dict(name=n, config=c, steps=trajectory(m)) for n, c, m in OPTIMIZERS],
        "schedule_lr": SCHEDULE_LR,
        "schedules": [dict(name=n, config=c, lrs=schedule(m)) for n, c, m in SCHEDULES],
    }
    with open(os.path.join(HERE, "data", "optim_golden.json"), "w") as f:
        json.dump(golden, f, indent=1)


def bf16(v):
    return struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:]


# name -> (dtype tag, shape, little-endian bytes); values mirrored in safetensors_test.cc.
INTEROP = {
    "weight": ("F32", [2, 3], struct.pack("<6f", 0, 1, 2, 3, 4, 5)),
    "big": ("I64", [2], struct.pack("<2q", -1, 1 << 40)),
    "half": ("F16", [2], struct.pack("<2e", 1.5, -2.0)),
    "brain": ("BF16", [2], bf16(1.0) + bf16(-3.0)),
    "mask": ("BOOL", [3], bytes([1, 0, 1])),
    "pixels": ("U8", [2], bytes([255, 7])),
    "pi": ("F64", [], struct.pack("<d", math.pi)),
    "empty": ("F32", [0, 4], b""),
}


def write_interop():
    # Data deliberately not in name order: readers must follow data_offsets, not the key order.
    header, data = {"__metadata__": {"format": "pt", "writer": "make_optim_golden.py"}}, b""
    for name in ["pi", "weight", "mask", "big", "half", "empty", "brain", "pixels"]:
        tag, shape, raw = INTEROP[name]
        header[name] = {"dtype": tag, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(HERE, "data", "interop.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    write_golden()
    write_interop()
