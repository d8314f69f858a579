#!/usr/bin/python3
"""PyTorch 1.13 eager peer of W12 (docs/benchmarks.md), with ../shared/peers/bench_torch.py's timing, thread
configurations and JSON format: tools/bench/make_w12_model.py's random LLaMA from its float32
model.safetensors, the forward of HF's LlamaModel written in torch ops with a KV cache:
  W12_llm_decode_fp32   32 greedy tokens after a 32-token prompt (the prompt fed once, untimed; each timed
                        run decodes positions 32..63 again), tokens/s
  W12_llm_prefill_fp32  a 128-token prompt from an empty cache, tokens/s
The prompts are the bench's (llm_workloads.cc's Prompt), so the greedy tokens each row records can be
checked against the bench's label.

  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 tools/bench/peer_llm.py \\
      --peers-dir ../shared/peers [--model FOLDER] [--json out.json] [--threads default,2]
"""
import json
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
peers_dir = os.environ.get("TG_PEERS_DIR", os.path.join(here, "..", "..", "..", "shared", "peers"))
for i, a in enumerate(sys.argv):
    if a == "--peers-dir" and i + 1 < len(sys.argv):
        peers_dir = sys.argv[i + 1]
sys.path[:0] = [here, os.path.abspath(peers_dir)]

import platform  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from bench_torch import DEFAULT_THREADS, thread_configs  # noqa: E402
from common import REPS, Report, bench, out_path  # noqa: E402
from make_w12_model import default_folder  # noqa: E402

DECODE_PROMPT, DECODE_TOKENS, PREFILL_TOKENS, CONTEXT = 32, 32, 128, 256
DTYPES = {"F32": np.float32, "F16": np.float16}


def prompt(n, vocab):
    return [259 + (i * 7919 + 13) % (vocab - 259) for i in range(n)]


def load_safetensors(path):
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        array = np.frombuffer(data, DTYPES[info["dtype"]], (end - begin) // np.dtype(DTYPES[info["dtype"]]).itemsize, begin)
        out[name] = torch.from_numpy(array.reshape(info["shape"]).astype(np.float32))
    return out


class Llama:
    """HF's LlamaModel + LM head in float32, eager: RMSNorm, rotate_half rope, grouped-query attention over a
    KV cache of CONTEXT positions, SwiGLU."""

    def __init__(self, cfg, w):
        self.d, self.h, self.kv = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.hd, self.eps, self.n = self.d // self.h, cfg["rms_norm_eps"], cfg["num_hidden_layers"]
        self.w = w
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, self.hd, 2, dtype=torch.int64).float() / self.hd))
        freqs = torch.arange(CONTEXT).float()[:, None] * inv[None, :]
        self.cos, self.sin = torch.cat([freqs, freqs], -1).cos(), torch.cat([freqs, freqs], -1).sin()
        self.cache = [(torch.zeros(self.kv, CONTEXT, self.hd), torch.zeros(self.kv, CONTEXT, self.hd))
                      for _ in range(self.n)]

    def rms(self, x, name):
        return self.w[name] * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))

    def rope(self, z, pos, t):
        cos, sin = self.cos[pos:pos + t], self.sin[pos:pos + t]
        a, b = z.chunk(2, -1)
        return z * cos + torch.cat([-b, a], -1) * sin

    def forward(self, ids, pos):
        """Feeds |ids| at positions pos.. through the cache; the last position's logits."""
        t, w, hd = len(ids), self.w, self.hd
        x = w["model.embed_tokens.weight"][torch.tensor(ids)]
        end = pos + t
        visible = torch.arange(end)[None, :] <= torch.arange(pos, end)[:, None]
        for i in range(self.n):
            p = f"model.layers.{i}."
            y = self.rms(x, p + "input_layernorm.weight")
            q = F.linear(y, w[p + "self_attn.q_proj.weight"]).view(t, self.h, hd).transpose(0, 1)
            k = F.linear(y, w[p + "self_attn.k_proj.weight"]).view(t, self.kv, hd).transpose(0, 1)
            v = F.linear(y, w[p + "self_attn.v_proj.weight"]).view(t, self.kv, hd).transpose(0, 1)
            cache_k, cache_v = self.cache[i]
            cache_k[:, pos:end] = self.rope(k, pos, t)
            cache_v[:, pos:end] = v
            keys, values = cache_k[:, :end], cache_v[:, :end]
            if self.h != self.kv:
                keys, values = keys.repeat_interleave(self.h // self.kv, 0), values.repeat_interleave(self.h // self.kv, 0)
            s = self.rope(q, pos, t) @ keys.transpose(-1, -2) / math.sqrt(hd)
            a = s.masked_fill(~visible, float("-inf")).softmax(-1) @ values
            x = x + F.linear(a.transpose(0, 1).reshape(t, self.h * hd), w[p + "self_attn.o_proj.weight"])
            y = self.rms(x, p + "post_attention_layernorm.weight")
            gate, up = F.linear(y, w[p + "mlp.gate_proj.weight"]), F.linear(y, w[p + "mlp.up_proj.weight"])
            x = x + F.linear(F.silu(gate) * up, w[p + "mlp.down_proj.weight"])
        return F.linear(self.rms(x[-1:], "model.norm.weight"), w["lm_head.weight"])[0]


def model_folder():
    for i, a in enumerate(sys.argv):
        if a == "--model" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
    return default_folder()


def main():
    cfgs = thread_configs()
    meta = {"torch": torch.__version__, "python": platform.python_version(), "default_num_threads": DEFAULT_THREADS,
            "configs": [{"tag": t or "default", "threads": n} for t, n in cfgs]}
    R = Report("torch", meta)
    print(f"[torch] {meta}", flush=True)
    folder = model_folder()
    files = [os.path.join(folder, f) for f in ("config.json", "model.safetensors")]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        reason = f"{missing[0]} is absent: run /usr/bin/python3 tools/bench/make_w12_model.py"
        for tag, _ in cfgs:
            for kind in ("decode", "prefill"):
                R.rows[f"W12_llm_{kind}_fp32{tag}"] = {"unit": "tokens/s", "skipped": reason}
        print(f"[torch] W12 skipped: {reason}", flush=True)
        R.dump(out_path())
        return
    with open(files[0]) as f:
        cfg = json.load(f)
    model = Llama(cfg, load_safetensors(files[1]))
    torch.set_grad_enabled(False)
    decode_prompt, prefill_prompt = prompt(DECODE_PROMPT, cfg["vocab_size"]), prompt(PREFILL_TOKENS, cfg["vocab_size"])
    first = int(model.forward(decode_prompt, 0).argmax())
    greedy = []

    def decode():
        greedy.clear()
        token = first
        for i in range(DECODE_TOKENS):
            greedy.append(token)
            token = int(model.forward([token], DECODE_PROMPT + i).argmax())

    for tag, n in cfgs:
        torch.set_num_threads(n)
        r = bench(decode, reps=REPS, warmup=2)
        R.add(f"W12_llm_decode_fp32{tag}", DECODE_TOKENS / r["median_s"], "tokens/s", r, greedy=greedy[:8])
    for tag, n in cfgs:
        torch.set_num_threads(n)
        r = bench(lambda: model.forward(prefill_prompt, 0), reps=REPS, warmup=2)
        R.add(f"W12_llm_prefill_fp32{tag}", PREFILL_TOKENS / r["median_s"], "tokens/s", r)
    R.dump(out_path())


if __name__ == "__main__":
    main()
