#!/usr/bin/python3
"""Writes tests/apps/data: a tiny random GPT-2 (gpt2_tiny.safetensors, written by hand in Hugging Face's
GPT2Model layout), a small byte-level BPE vocabulary (vocab.json, merges.txt) learned here from a short
text, and the references gpt2_golden.json: PyTorch 1.13 logits of the tiny model for a token sequence,
and the ids GPT-2's tokenizer algorithm gives for a few strings.

Run: /usr/bin/python3 tests/apps/make_gpt2_golden.py (Debian's python3-torch; no transformers package:
the forward below is GPT2Model's, written out by hand).
"""
import json
import os
import re
import struct

import torch

from bpe_reference import bytes_to_unicode, learn_merges

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
LAYERS, DIM, HEADS, CONTEXT, MERGES = 2, 32, 2, 16, 40
# GPT-2's pattern with \p{L} / \p{N} narrowed to ASCII (the `regex` module is not in Debian's python3);
# the test strings are ASCII, where the two agree.
PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")
TRAIN_TEXT = ("The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs. "
              "It's the fox's den, and they'll see 12 foxes in 2024 there.\n\n  Then the end.") * 3
CASES = ["The fox jumps.", "they'll see the dog's 2024 den", "  two  spaces\n\nand lines ", "xyz!? 123abc"]


def learn_merges_from_text(text, count):
    b2u = bytes_to_unicode()
    return learn_merges((tuple(b2u[b] for b in w.encode()) for w in PATTERN.findall(text)), count)


def encode(text, vocab, merges):
    """openai/gpt-2 encoder.py's bpe(), per pre-token."""
    b2u, ranks, ids = bytes_to_unicode(), {m: i for i, m in enumerate(merges)}, []
    for piece in PATTERN.findall(text):
        word = [b2u[b] for b in piece.encode()]
        while len(word) > 1:
            pair = min(zip(word, word[1:]), key=lambda p: ranks.get(p, float("inf")))
            if pair not in ranks:
                break
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = out
        ids += [vocab[t] for t in word]
    return ids


def tiny_weights(vocab_size):
    g = torch.Generator().manual_seed(0)
    r = lambda *shape, s=0.2: torch.randn(*shape, generator=g) * s
    w = {"wte.weight": r(vocab_size, DIM), "wpe.weight": r(CONTEXT, DIM, s=0.1),
         "ln_f.weight": 1 + r(DIM, s=0.1), "ln_f.bias": r(DIM, s=0.1)}
    for i in range(LAYERS):
        p = f"h.{i}."
        w.update({p + "ln_1.weight": 1 + r(DIM, s=0.1), p + "ln_1.bias": r(DIM, s=0.1),
                  p + "attn.c_attn.weight": r(DIM, 3 * DIM), p + "attn.c_attn.bias": r(3 * DIM, s=0.05),
                  p + "attn.c_proj.weight": r(DIM, DIM), p + "attn.c_proj.bias": r(DIM, s=0.05),
                  p + "ln_2.weight": 1 + r(DIM, s=0.1), p + "ln_2.bias": r(DIM, s=0.1),
                  p + "mlp.c_fc.weight": r(DIM, 4 * DIM), p + "mlp.c_fc.bias": r(4 * DIM, s=0.05),
                  p + "mlp.c_proj.weight": r(4 * DIM, DIM), p + "mlp.c_proj.bias": r(DIM, s=0.05)})
    return w


def gelu_new(x):  # GPT-2's tanh approximation
    return 0.5 * x * (1 + torch.tanh((2 / torch.pi) ** 0.5 * (x + 0.044715 * x ** 3)))


def forward(w, ids):
    """HF GPT2Model + tied LM head, in float32."""
    t = len(ids)
    ln = lambda x, p: torch.nn.functional.layer_norm(x, (DIM,), w[p + ".weight"], w[p + ".bias"], 1e-5)
    x = w["wte.weight"][ids] + w["wpe.weight"][:t]
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
    for i in range(LAYERS):
        p = f"h.{i}."
        q, k, v = (ln(x, p + "ln_1") @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]).split(DIM, -1)
        heads = lambda z: z.view(t, HEADS, DIM // HEADS).transpose(0, 1)
        att = heads(q) @ heads(k).transpose(-1, -2) / (DIM // HEADS) ** 0.5
        y = (att.masked_fill(~mask, float("-inf")).softmax(-1) @ heads(v)).transpose(0, 1).reshape(t, DIM)
        x = x + y @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = gelu_new(ln(x, p + "ln_2") @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        x = x + h @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return ln(x, "ln_f") @ w["wte.weight"].T


def save_safetensors(tensors, path):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        blob = tensors[name].contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    os.makedirs(DATA, exist_ok=True)
    b2u = bytes_to_unicode()
    merges = learn_merges_from_text(TRAIN_TEXT, MERGES)
    tokens = [b2u[b] for b in range(256)] + [a + b for a, b in merges]
    vocab = {t: i for i, t in enumerate(tokens)}
    with open(os.path.join(DATA, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(DATA, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    w = tiny_weights(len(vocab))
    save_safetensors(w, os.path.join(DATA, "gpt2_tiny.safetensors"))
    ids = encode("The quick fox's den, 2024.", vocab, merges)[:CONTEXT]
    with torch.no_grad():
        logits = forward(w, torch.tensor(ids))
    golden = {"heads": HEADS, "ids": ids, "logits": [round(v, 7) for v in logits.flatten().tolist()],
              "cases": [{"text": c, "ids": encode(c, vocab, merges)} for c in CASES]}
    with open(os.path.join(DATA, "gpt2_golden.json"), "w") as f:
        json.dump(golden, f)
    print(f"wrote {DATA}: vocab {len(vocab)}, {len(ids)} golden tokens, logits {tuple(logits.shape)}")


if __name__ == "__main__":
    main()
