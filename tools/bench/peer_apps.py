#!/usr/bin/python3
"""PyTorch 1.13 peer of the end-to-end app figures (RESULTS.md, "Apps"): the same Fashion-MNIST CNN as
apps/mnist_cnn.h (16/32 channels, Adam, batch 128, lr 3e-3 decaying linearly to 10%) and the same byte GPT
as apps/char_gpt.h (2 layers, dim 64, 4 heads, context 64, batch 16, AdamW). Prints seconds per epoch,
seconds to 90% test accuracy, and GPT training tokens/s.

  /usr/bin/python3 tools/bench/peer_apps.py [--epochs 3] [--gpt-steps 200] [--threads 2]
"""
import argparse
import glob
import gzip
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path) as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


class Cnn(nn.Module):
    def __init__(self, c1=16, c2=32):
        super().__init__()
        self.c = nn.ModuleList([nn.Conv2d(1, c1, 3), nn.Conv2d(c1, c1, 3), nn.Conv2d(c1, c2, 3), nn.Conv2d(c2, c2, 3)])
        self.bn1, self.bn2, self.head = nn.BatchNorm2d(c1), nn.BatchNorm2d(c2), nn.Linear(c2 * 16, 10)

    def forward(self, x):
        x = F.max_pool2d(self.bn1(F.relu(self.c[1](F.relu(self.c[0](x))))), 2)
        x = F.max_pool2d(self.bn2(F.relu(self.c[3](F.relu(self.c[2](x))))), 2)
        return self.head(x.flatten(1))


def fashion(epochs, batch=128, lr=3e-3):
    xt = torch.tensor(idx(f"{DATA}/train-images-idx3-ubyte.gz"), dtype=torch.float32).unsqueeze(1) / 255
    yt = torch.tensor(idx(f"{DATA}/train-labels-idx1-ubyte.gz"), dtype=torch.long)
    xe = torch.tensor(idx(f"{DATA}/t10k-images-idx3-ubyte.gz"), dtype=torch.float32).unsqueeze(1) / 255
    ye = torch.tensor(idx(f"{DATA}/t10k-labels-idx1-ubyte.gz"), dtype=torch.long)
    torch.manual_seed(1337)
    model = Cnn()
    opt = torch.optim.Adam(model.parameters(), lr)
    steps = len(xt) // batch
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda n: 1 - 0.9 * min(n, steps * epochs) / (steps * epochs))
    start, reached = time.time(), None
    for e in range(epochs):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(xt))
        for s in range(steps):
            i = perm[s * batch:(s + 1) * batch]
            loss = F.cross_entropy(model(xt[i]), yt[i])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        train_s = time.time() - t0
        model.eval()
        with torch.no_grad():
            acc = sum((model(xe[k:k + 1000]).argmax(-1) == ye[k:k + 1000]).sum().item() for k in range(0, 10000, 1000)) / 1e4
        if acc >= 0.9 and reached is None:
            reached = time.time() - start
        print(f"torch fashion_mnist epoch {e + 1}: test accuracy {100 * acc:.2f}%  train {train_s:.1f} s/epoch")
    print(f"torch fashion_mnist: seconds to 90%: {reached if reached is None else round(reached, 1)}")


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.ln1, self.attn, self.proj = h, nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln2, self.fc, self.out = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln1(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True) if hasattr(F, "scaled_dot_product_attention") \
            else (((q @ k.transpose(-1, -2)) / (d // self.h) ** 0.5).masked_fill(
                torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf")).softmax(-1) @ v)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class CharGpt(nn.Module):
    """apps/char_gpt.h's CharGpt: byte embedding + learned positions, pre-LN blocks, final LayerNorm, head."""
    def __init__(self, vocab=256, context=64, dim=64, layers=2, heads=4):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
        self.blocks, self.ln_f = nn.ModuleList([Block(dim, heads) for _ in range(layers)]), nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln_f(h))


def gpt_adamw(model, lr=3e-3):
    """apps/gpt.cc's optimizer: AdamW, betas (0.9, 0.99), weight decay 0.01."""
    return torch.optim.AdamW(model.parameters(), lr, betas=(0.9, 0.99), weight_decay=0.01)


def licence_corpus():
    """apps/char_gpt.cc's LoadCorpus(): every regular file of /usr/share/common-licenses, in name order."""
    return b"".join(open(p, "rb").read() for p in sorted(glob.glob("/usr/share/common-licenses/*"))
                    if os.path.isfile(p) and not os.path.islink(p))


def gpt(steps, batch=16, context=64, dim=64, layers=2, heads=4):
    data = torch.tensor(list(licence_corpus()), dtype=torch.long)
    torch.manual_seed(1337)
    model = CharGpt(256, context, dim, layers, heads)
    opt = gpt_adamw(model)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps, 3e-4)
    t0 = None
    for s in range(steps):
        if s == 10:
            t0 = time.time()  # after warm-up, as the C++ figure excludes compilation
        i = torch.randint(0, len(data) - context - 1, (batch,))
        x = torch.stack([data[j:j + context] for j in i])
        y = torch.stack([data[j + 1:j + context + 1] for j in i])
        loss = F.cross_entropy(model(x).view(-1, 256), y.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    print(f"torch gpt: final loss {loss.item():.3f}, {(steps - 10) * batch * context / (time.time() - t0):.0f} tokens/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--gpt-steps", type=int, default=200, help="0 skips the gpt run; otherwise more than 10 (warm-up)")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.gpt_steps != 0 and a.gpt_steps <= 10:
        ap.error("--gpt-steps must be 0 (skip) or more than the 10 warm-up steps")
    if a.gpt_steps:
        gpt(a.gpt_steps)
    fashion(a.epochs)


if __name__ == "__main__":
    main()
