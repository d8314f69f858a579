#!/usr/bin/python3
"""Writes tests/apps/data/llm_gguf/: small random LLaMA-family models as GGUF files, the references
apps/llm_gguf is tested against, and malformed files for its errors.

- llama_{f16,q8_0,q4_0,q4_k}.gguf, qwen2_{f32,q8_0,q4_0,q4_k}.gguf: one random model per layout, stored in
  those tensor types as llama.cpp's converter and quantizer lay them out (every type and both layouts,
  not every pair, to keep the data small). "llama": 4 heads, 2 KV heads, untied output, linear rope
  scaling (llama_q4_0: llama3's, as the rope_freqs.weight tensor llama.cpp writes for it), and the
  converter's permutation of the Q and K rows (convert_hf_to_gguf.py, LlamaModel.permute).
  "qwen2": 1 KV head, q/k/v biases, tied embeddings (no output.weight), not permuted, the embedding padded
  past the tokenizer's 5 rows. Norms and biases are
  F32 in every file, as llama.cpp keeps them. Q4_K needs rows of 256 elements: the q4_k models have a
  feed-forward size of 256 (and one layer), so ffn_down is Q4_K and the other matrices (rows of 32) fall back to Q8_0, as
  llama.cpp's K-quant mixes fall back for tensors whose rows are not whole super-blocks. The q8_0 files
  carry the tokenizer too (tokenizer.ggml.*, from make_llm_reference.py's tokenizers); the others do not,
  so their vocabulary is token_embd's rows.
- reference.json: per file, the prompt's ids, the logits of the last prompt position (of every position
  for the F32 and F16 files) and the greedy continuation, from make_llm_reference.py's PyTorch forward (HF's LlamaModel/Qwen2Model in torch ops) over
  that file's own weights: each tensor's stored bytes dequantized here (tests/nn/make_gguf.py's numpy
  dequantizers, ggml's dequantize_row_*) and, for llama's Q and K, permuted back to HF's row order.
- bad_*.gguf: headers (tensor data zeroed) that LoadLlmGguf must refuse, one per error.

Run: /usr/bin/python3 tests/apps/make_llm_gguf_reference.py (Debian's python3-torch and numpy).
"""
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nn"))
import make_gguf as g  # noqa: E402
import make_llm_reference as ref  # noqa: E402

OUT = os.path.join(HERE, "data", "llm_gguf")
TYPES = {"f32": g.F32, "f16": g.F16, "q8_0": g.Q8_0, "q4_0": g.Q4_0, "q4_k": g.Q4_K}
# Every type and both layouts, not all ten pairs (the data stays small): F16 for llama, F32 for qwen2.
FILES = {"llama": ["f16", "q8_0", "q4_0", "q4_k"], "qwen2": ["f32", "q8_0", "q4_0", "q4_k"]}
TYPE_NAMES = {g.F32: "F32", g.F16: "F16", g.Q8_0: "Q8_0", g.Q4_0: "Q4_0", g.Q4_K: "Q4_K"}
FILE_TYPES = {g.F32: 0, g.F16: 1, g.Q4_0: 2, g.Q8_0: 7, g.Q4_K: 15}  # llama_ftype: ALL_F32, MOSTLY_F16, ..., Q4_K_M

# HF name -> GGUF name (llama.cpp's tensor_mapping.py, the part these layouts use).
LAYER_NAMES = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
               "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
               "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
               "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
               "mlp.down_proj.weight": "ffn_down.weight", "self_attn.q_proj.bias": "attn_q.bias",
               "self_attn.k_proj.bias": "attn_k.bias", "self_attn.v_proj.bias": "attn_v.bias"}
TOP_NAMES = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
             "lm_head.weight": "output.weight"}


def gguf_name(hf):
    if hf in TOP_NAMES:
        return TOP_NAMES[hf]
    parts = hf.split(".")  # model.layers.N.rest
    return f"blk.{parts[2]}.{LAYER_NAMES['.'.join(parts[3:])]}"


def unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def permuted_heads(cfg, hf):
    if cfg["model_type"] != "llama":
        return 0
    if ".q_proj." in hf:
        return cfg["num_attention_heads"]
    if ".k_proj." in hf:
        return cfg["num_key_value_heads"]
    return 0


def stored_type(file_type, shape):
    if len(shape) == 1:
        return g.F32
    if shape[-1] % g.BLOCKS[file_type][0] == 0:
        return file_type
    return g.Q8_0 if shape[-1] % 32 == 0 else g.F16  # llama.cpp's fallbacks for rows of partial blocks


def metadata(cfg, file_type, tokenizer):
    arch = cfg["model_type"]
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    u32, f32 = g.UINT32, g.FLOAT32
    md = [("general.architecture", g.STRING, arch), ("general.name", g.STRING, f"tiny random {arch}"),
          ("general.file_type", u32, FILE_TYPES[file_type]),
          (f"{arch}.context_length", u32, cfg["max_position_embeddings"]),
          (f"{arch}.embedding_length", u32, cfg["hidden_size"]), (f"{arch}.block_count", u32, cfg["num_hidden_layers"]),
          (f"{arch}.feed_forward_length", u32, cfg["intermediate_size"]),
          (f"{arch}.attention.head_count", u32, cfg["num_attention_heads"]),
          (f"{arch}.attention.head_count_kv", u32, cfg["num_key_value_heads"]),
          (f"{arch}.attention.layer_norm_rms_epsilon", f32, cfg["rms_norm_eps"]),
          (f"{arch}.rope.freq_base", f32, cfg["rope_theta"]), (f"{arch}.rope.dimension_count", u32, hd)]
    scaling = cfg.get("rope_scaling")
    if scaling and scaling["type"] == "linear":  # llama3's is the rope_freqs tensor
        md += [(f"{arch}.rope.scaling.type", g.STRING, scaling["type"]), (f"{arch}.rope.scaling.factor", f32, scaling["factor"])]
    md += [("tokenizer.ggml.bos_token_id", u32, cfg["bos_token_id"]), ("tokenizer.ggml.eos_token_id", u32, cfg["eos_token_id"])]
    if tokenizer is not None:
        md += tokenizer_metadata(arch, tokenizer)
    return md


def tokenizer_metadata(arch, tok):
    """convert_hf_to_gguf.py's vocab keys: tokens by id, their types (1 normal, 3 control, 6 byte), merges;
    for the SentencePiece-style one also scores (a merged token's is minus its merge rank)."""
    tokens = sorted(tok.vocab, key=tok.vocab.get) + sorted(getattr(tok, "added", {}).keys() - tok.vocab.keys(),
                                                           key=lambda t: tok.added[t])
    assert [tok.vocab.get(t, tok.added.get(t)) for t in tokens] == list(range(len(tokens)))
    merged = {a + b: i for i, (a, b) in enumerate(tok.merges)}
    types = [3 if t in tok.added else 6 if t.startswith("<0x") and len(t) == 6 else 1 for t in tokens]
    md = [("tokenizer.ggml.model", g.STRING, "llama" if arch == "llama" else "gpt2"),
          ("tokenizer.ggml.tokens", g.ARRAY, (g.STRING, tokens)),
          ("tokenizer.ggml.token_type", g.ARRAY, (g.INT32, types)),
          ("tokenizer.ggml.merges", g.ARRAY, (g.STRING, [f"{a} {b}" for a, b in tok.merges]))]
    if arch == "llama":
        md += [("tokenizer.ggml.scores", g.ARRAY, (g.FLOAT32, [-float(merged[t]) if t in merged else 0.0 for t in tokens])),
               ("tokenizer.ggml.add_bos_token", g.BOOL, True)]
    else:
        md += [("tokenizer.ggml.pre", g.STRING, "qwen2"), ("tokenizer.ggml.add_bos_token", g.BOOL, False)]
    return md


def rope_freqs(cfg):
    """convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors for llama3 rope scaling: each frequency's
    divisor, which ggml's rope applies (theta_i / freq_factors[i])."""
    s, hd = cfg["rope_scaling"], cfg["hidden_size"] // cfg["num_attention_heads"]
    freqs = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    low_wavelen = s["original_max_position_embeddings"] / s["low_freq_factor"]
    high_wavelen = s["original_max_position_embeddings"] / s["high_freq_factor"]
    factors = []
    for freq in freqs.tolist():
        wavelen = 2 * math.pi / freq
        if wavelen < high_wavelen:
            factors.append(1)
        elif wavelen > low_wavelen:
            factors.append(s["factor"])
        else:
            smooth = (s["original_max_position_embeddings"] / wavelen - s["low_freq_factor"]) / (
                s["high_freq_factor"] - s["low_freq_factor"])
            factors.append(1 / ((1 - smooth) / s["factor"] + smooth))
    return np.array(factors, np.float32)


def write_model(name, cfg, weights, file_type, tokenizer, split=False):
    """Writes OUT/name.gguf (and, with |split|, the same in two parts); returns the float32 HF-layout weights
    its bytes hold."""
    entries, stored = [], {}
    if (cfg.get("rope_scaling") or {}).get("type") == "llama3":
        entries.append(g.tensor("rope_freqs.weight", g.F32, rope_freqs(cfg))[0])
    for hf in sorted(weights):
        x = weights[hf].float().numpy()
        heads = permuted_heads(cfg, hf)
        if heads:
            x = g.llama_permute(x, heads)
        entry, values = g.tensor(gguf_name(hf), stored_type(file_type, x.shape), x)
        entries.append(entry)
        values = np.asarray(values, np.float32).reshape(x.shape)
        stored[hf] = torch.from_numpy(unpermute(values, heads) if heads else values.copy())
    meta = metadata(cfg, file_type, tokenizer)
    with open(os.path.join(OUT, name + ".gguf"), "wb") as f:
        f.write(g.gguf_bytes(meta, entries))
    if split:
        write_split(name + "_split", meta, entries)
    return stored


def write_split(name, meta, entries):
    """The same model as llama.cpp's gguf-split writes it in two parts, NAME-0000N-of-00002.gguf: the first
    with the metadata and the first half of the tensors, the second with the rest; split.* keys in both."""
    half = len(entries) // 2
    for no, part in enumerate([entries[:half], entries[half:]]):
        keys = [("split.no", g.UINT16, no), ("split.count", g.UINT16, 2), ("split.tensors.count", g.INT32, len(entries))]
        with open(os.path.join(OUT, "%s-%05d-of-00002.gguf" % (name, no + 1)), "wb") as f:
            f.write(g.gguf_bytes((meta if no == 0 else []) + keys, part))


def bad_files():
    """Metadata (and a tensor table with zeroed data) for each refusal LoadLlmGguf makes."""
    cfg = {"model_type": "llama", "hidden_size": 8, "intermediate_size": 8, "num_hidden_layers": 1,
           "num_attention_heads": 2, "num_key_value_heads": 1, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
           "max_position_embeddings": 16, "bos_token_id": 1, "eos_token_id": 2}
    base = metadata(cfg, g.F32, None)
    d, f, kv = 8, 8, 4
    shapes = {"token_embd.weight": [8, d], "output_norm.weight": [d], "blk.0.attn_norm.weight": [d],
              "blk.0.attn_q.weight": [d, d], "blk.0.attn_k.weight": [kv, d], "blk.0.attn_v.weight": [kv, d],
              "blk.0.attn_output.weight": [d, d], "blk.0.ffn_norm.weight": [d], "blk.0.ffn_gate.weight": [f, d],
              "blk.0.ffn_up.weight": [f, d], "blk.0.ffn_down.weight": [d, f]}

    def tensors(changed=None, drop=(), extra=None):
        s = dict(shapes, **(changed or {}), **(extra or {}))
        return [(n, g.F32, sh, bytes(4 * int(np.prod(sh)))) for n, sh in s.items() if n not in drop]

    def replaced(key, vtype, value):
        return [(k, vtype, value) if k == key else (k, t, v) for k, t, v in base]

    cases = {
        "bad_architecture": (replaced("general.architecture", g.STRING, "gptneox"), tensors()),
        "bad_missing_key": ([e for e in base if e[0] != "llama.feed_forward_length"], tensors()),
        "bad_heads": (replaced("llama.attention.head_count_kv", g.UINT32, 3), tensors()),
        "bad_shape": (base, tensors({"blk.0.attn_k.weight": [d, d]})),
        "bad_missing_tensor": (base, tensors(drop=("blk.0.ffn_up.weight",))),
        "bad_rope_freqs": (base, tensors(extra={"rope_freqs.weight": [3]})),
        "bad_rope_scaling": (base + [("llama.rope.scaling.type", g.STRING, "yarn"),
                                     ("llama.rope.scaling.factor", g.FLOAT32, 4.0)], tensors()),
    }
    for name, (md, ts) in cases.items():
        with open(os.path.join(OUT, name + ".gguf"), "wb") as f:
            f.write(g.gguf_bytes(md, ts))


# HF's llama3 rope scaling, which llama.cpp stores as rope_freqs.weight (llama_q4_0 has it).
LLAMA3_SCALING = {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 16}


def name_of(layout, type_name):
    return f"{layout}_{type_name}"


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    sp, bl = ref.SentencePieceBpe(), ref.ByteLevelBpe()
    llama = {"model_type": "llama", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
             "max_position_embeddings": 64, "rope_scaling": {"type": "linear", "factor": 2.0},
             "tie_word_embeddings": False, "vocab_size": len(sp.vocab), "bos_token_id": 1, "eos_token_id": 2}
    qwen2 = {"model_type": "qwen2", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 1, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
             "max_position_embeddings": 128, "rope_scaling": None, "tie_word_embeddings": True,
             "vocab_size": len(bl.vocab) + len(bl.added) + 5, "bos_token_id": bl.added["<|endoftext|>"],
             "eos_token_id": bl.added["<|im_end|>"]}
    out = {}
    with torch.no_grad():
        for layout, cfg, tok, seed in [("llama", llama, sp, 3), ("qwen2", qwen2, bl, 4)]:
            ids = tok.encode(ref.PROMPT, bos=True)
            for type_name in FILES[layout]:
                file_type = TYPES[type_name]
                c = dict(cfg, intermediate_size=256, num_hidden_layers=1) if file_type == g.Q4_K else cfg
                if name_of(layout, type_name) == "llama_q4_0":
                    c = dict(c, rope_scaling=LLAMA3_SCALING)
                weights = ref.random_weights(c, seed, torch.float32)
                # Byte, special and padding tokens unlikely, so greedy text is whole merged tokens.
                if layout == "llama":
                    weights["lm_head.weight"][:3 + 256] = 0
                else:
                    embed = weights["model.embed_tokens.weight"]
                    embed[:256] *= 0.05
                    embed[len(bl.vocab):] *= 0.05
                name = name_of(layout, type_name)
                stored = write_model(name, c, weights, file_type, tok if file_type == g.Q8_0 else None,
                                     split=name == "qwen2_q8_0")
                logits = ref.forward(c, stored, ids)
                first = 0 if file_type in (g.F32, g.F16) else len(ids) - 1
                cont = ref.greedy(c, stored, ids, ref.GREEDY_TOKENS)
                out[name] = {"ids": ids, "first_position": first, "logits": ref.rounded(logits[first:]), "greedy": cont}
                if file_type == g.Q8_0:  # the file has the tokenizer: the app's text
                    out[name].update(prompt=ref.PROMPT, greedy_text=ref.continuation_text(tok, ids, cont))
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(out, f)
    bad_files()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {OUT}: {len(os.listdir(OUT))} files, {total} bytes")


if __name__ == "__main__":
    main()
