#!/usr/bin/python3
"""PyTorch 1.13 peer of the suite's app workloads, the companion of ../shared/peers/bench_torch.py (W1-W7), with
its timing, thread configurations and JSON format (it imports them from that directory):
  W9   one training step of apps/mnist_cnn.h's Fashion-MNIST CNN: batch 128, cross-entropy, Adam lr 3e-3 (steps/s)
  W10  one training step of apps/gpt at its README configuration: 2 layers, dim 64, 4 heads, context 64,
       batch 16, AdamW lr 3e-3 betas (0.9, 0.99) weight decay 0.01 (tokens/s)
The models are peer_apps.py's (Cnn, CharGpt), which mirror the apps layer for layer. And the cold starts, each
timed in a fresh python3 process (this script re-run with --cold KIND), the model, optimizer and batch built
before the timer as in the suite's children, the first call inside it (one warm-up child, then 5 timed):
  W8a  the first forward of W5's MLP (bench_torch.py's MLP, batch 128)
  W8b  the first training step of W5's MLP (cross-entropy, Adam lr 1e-3)
  W8e  the first W9 step

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tools/bench/peers_torch.py \\
      --peers-dir ../shared/peers [--json out.json] [--threads default,2]
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
peers_dir = os.environ.get("TG_PEERS_DIR", os.path.join(here, "..", "..", "..", "shared", "peers"))
for i, a in enumerate(sys.argv):
    if a == "--peers-dir" and i + 1 < len(sys.argv):
        peers_dir = sys.argv[i + 1]
sys.path[:0] = [here, os.path.abspath(peers_dir)]

import platform  # noqa: E402
import subprocess  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from bench_torch import DEFAULT_THREADS, MLP, thread_configs  # noqa: E402
from common import REPS, W5_BS, W5_DIMS, Report, bench, out_path  # noqa: E402
from peer_apps import Cnn, CharGpt, gpt_adamw, licence_corpus  # noqa: E402

W9_BS, W9_LR = 128, 3e-3
W10_BS, W10_CONTEXT = 16, 64
COLD_WARMUP, COLD_REPS = 1, 5


def classifier_step(model, opt, x, y):
    """One cross-entropy training step of |model| on the fixed batch (x, y)."""
    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def cnn_step_fn():
    """apps/fashion_mnist.cc's step on one fixed batch of random images in [0, 1) and random labels."""
    torch.manual_seed(1337)
    model = Cnn()
    model.train()
    opt = torch.optim.Adam(model.parameters(), W9_LR)
    return classifier_step(model, opt, torch.rand(W9_BS, 1, 28, 28), torch.randint(0, 10, (W9_BS,)))


def gpt_step_fn():
    """apps/gpt.cc's step on one fixed batch of random windows of the licence corpus."""
    data = torch.tensor(list(licence_corpus()), dtype=torch.long)
    torch.manual_seed(1337)
    model = CharGpt(256, W10_CONTEXT)
    opt = gpt_adamw(model)
    i = torch.randint(0, len(data) - W10_CONTEXT - 1, (W10_BS,))
    x = torch.stack([data[j:j + W10_CONTEXT] for j in i])
    y = torch.stack([data[j + 1:j + W10_CONTEXT + 1] for j in i])

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x).view(-1, 256), y.view(-1))
        loss.backward()
        opt.step()
        return loss
    return step


def mlp_fns():
    """W5's model, data and Adam (bench_torch.py's): (forward, step)."""
    torch.manual_seed(0)
    model = MLP(W5_DIMS)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(W5_BS, W5_DIMS[0]), torch.randint(0, W5_DIMS[-1], (W5_BS,))
    return (lambda: model(x)), classifier_step(model, opt, x, y)


COLD_KINDS = {"W8a_cold_mlp_forward": lambda: mlp_fns()[0], "W8b_cold_mlp_step": lambda: mlp_fns()[1],
              "W8e_cold_cnn_step": cnn_step_fn}


def cold_child(kind, threads):
    """Prints "cold_ms X": the first call of |kind|'s function, built before the timer."""
    torch.set_num_threads(threads)
    fn = COLD_KINDS[kind]()
    t0 = time.perf_counter()
    fn()
    print(f"cold_ms {(time.perf_counter() - t0) * 1e3:.3f}", flush=True)


def spawn_cold(kind, threads):
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--peers-dir", peers_dir, "--cold", kind,
                        "--cold-threads", str(threads)], capture_output=True, text=True, env=os.environ)
    for line in r.stdout.splitlines():
        if r.returncode == 0 and line.startswith("cold_ms "):
            return float(line.split()[1]) / 1e3
    raise RuntimeError(f"cold child {kind} failed ({r.returncode}): {r.stderr[-2000:]}")


def bench_cold(kind, threads):
    first = spawn_cold(kind, threads)
    for _ in range(COLD_WARMUP - 1):
        spawn_cold(kind, threads)
    ts = [spawn_cold(kind, threads) for _ in range(COLD_REPS)]
    return {"first_s": first, "median_s": statistics.median(ts), "min_s": min(ts), "times": ts}


def arg(name):
    return next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == name), None)


def main():
    if arg("--cold"):
        return cold_child(arg("--cold"), int(arg("--cold-threads") or DEFAULT_THREADS))
    cfgs = thread_configs()
    meta = {"torch": torch.__version__, "python": platform.python_version(), "default_num_threads": DEFAULT_THREADS,
            "configs": [{"tag": t or "default", "threads": n} for t, n in cfgs],
            "env": {k: os.environ.get(k, "(unset)") for k in ("OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",
                                                             "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS")}}
    R = Report("torch", meta)
    print(f"[torch] {meta}", flush=True)
    for tag, n in cfgs:
        torch.set_num_threads(n)
        r = bench(cnn_step_fn(), reps=max(REPS, 10), warmup=3)
        R.add(f"W9_cnn_train{tag}", 1 / r["median_s"], "steps/s", r)
    for tag, n in cfgs:
        torch.set_num_threads(n)
        r = bench(gpt_step_fn(), reps=max(REPS, 20), warmup=3)
        R.add(f"W10_gpt_train{tag}", W10_BS * W10_CONTEXT / r["median_s"], "tokens/s", r)
    for kind in COLD_KINDS:
        for tag, n in cfgs:
            r = bench_cold(kind, n)
            R.add(f"{kind}{tag}", r["median_s"] * 1e3, "ms", r)
    R.dump(out_path())


if __name__ == "__main__":
    main()
