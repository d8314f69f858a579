#!/usr/bin/python3
"""Writes tests/apps/data/llm_*: two small random LLaMA-family models in Hugging Face's layout and the
references apps/llm is tested against.

- llm_llama/: model_type "llama", grouped-query attention (4 heads, 2 KV heads), untied LM head, llama3
  rope scaling, F16 weights in one model.safetensors, and a SentencePiece-style BPE tokenizer.json with byte
  fallback (LLaMA 2's layout: Prepend/Replace normalizer, <s> added by the post-processor).
- llm_qwen2/: model_type "qwen2", one KV head, q/k/v biases, tied embeddings, rope_theta 1e6, BF16
  weights in two shards with model.safetensors.index.json, and a byte-level BPE tokenizer.json split by
  Qwen2's regex, with <|im_start|>/<|im_end|> added tokens; config.json pads the vocabulary past the
  tokenizer's, as released Qwen2 models do.
- llm_reference.json: for each model, the prompt's ids, the logits of every prompt position, the greedy
  continuation (recomputing the whole sequence each step), the llama weights again under a mistral config
  (linear rope scaling, sliding window) and the ids of test strings under each tokenizer.

Run: /usr/bin/python3 tests/apps/make_llm_reference.py (Debian's python3-torch; there is no transformers
or tokenizers package here, so the forward below is LlamaModel/Qwen2Model's written out with torch ops,
and the tokenizers are HF tokenizers' BPE algorithm written out in Python).
"""
import json
import math
import os
import re
import struct

import torch

from bpe_reference import bytes_to_unicode, learn_merges, merge_word

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SPACE = "\u2581"  # SentencePiece's word marker
TRAIN_TEXT = ("The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs. "
              "It's the fox's den, and they'll see 12 foxes in 2024 there. Caf\u00e9 cr\u00e8me, tr\u00e8s bien.\n"
              "Then the end.\n") * 3
PROMPT = "The quick fox's den"
GREEDY_TOKENS = 10
CASES = ["The fox jumps.", "they'll see the dog's 2024 den", "  two  spaces\n\nand lines ", "xyz!? 123abc",
         "Caf\u00e9 \u65e5\u672c\u8a9e \U0001f642 na\u00efve", "<|im_start|>user\nhi<|im_end|>"]

# Letters are ASCII letters and every non-ASCII code point, numbers ASCII digits, whitespace ASCII
# whitespace: the classes apps/llm_pretokenizer.cc implements (Python's re has no \p{L}).
L, N, S = "A-Za-z\u0080-\U0010ffff", "0-9", " \t\n\v\f\r"
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
               r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PY = re.compile(
    f"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n{L}{N}]?[{L}]+|[{N}]| ?[^{S}{L}{N}]+[\r\n]*|[{S}]*[\r\n]+|"
    f"[{S}]+(?![^{S}])|[{S}]+")


B2U = bytes_to_unicode()
U2B = {u: b for b, u in B2U.items()}


def split_added(text, added):
    """Text pieces and added-token ids, longest added token first, as HF's AddedVocabulary splits."""
    out, i = [], 0
    names = sorted(added, key=len, reverse=True)
    start = 0
    while i < len(text):
        hit = next((a for a in names if text.startswith(a, i)), None)
        if hit is None:
            i += 1
            continue
        if start < i:
            out.append(text[start:i])
        out.append(added[hit])
        i += len(hit)
        start = i
    if start < len(text):
        out.append(text[start:])
    return out


class SentencePieceBpe:
    def __init__(self):
        specials = ["<unk>", "<s>", "</s>"]
        chars = sorted(set(TRAIN_TEXT.replace(" ", SPACE)) | {SPACE})
        words = [tuple(SPACE + w) for w in TRAIN_TEXT.split(" ")]
        self.merges = learn_merges(words, 60)
        tokens = specials + [f"<0x{b:02X}>" for b in range(256)] + chars + [a + b for a, b in self.merges]
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.ranks = {m: i for i, m in enumerate(self.merges)}
        self.added = {t: self.vocab[t] for t in specials}

    def encode_piece(self, text):
        symbols = merge_word(SPACE + text.replace(" ", SPACE), self.ranks)
        ids = []
        for s in symbols:
            if s in self.vocab:
                ids.append(self.vocab[s])
            else:  # byte fallback
                ids += [self.vocab[f"<0x{b:02X}>"] for b in s.encode()]
        return ids

    def encode(self, text, bos=True):
        ids = [self.vocab["<s>"]] if bos else []
        for piece in split_added(text, self.added):
            ids += [piece] if isinstance(piece, int) else self.encode_piece(piece)
        return ids

    def decode(self, ids):
        inv = {i: t for t, i in self.vocab.items()}
        out = b""
        for i in ids:
            t = inv[i]
            if t in self.added:
                continue
            if re.fullmatch(r"<0x[0-9A-F]{2}>", t):
                out += bytes([int(t[3:5], 16)])
            else:
                out += t.replace(SPACE, " ").encode()
        text = out.decode("utf-8")
        return text[1:] if text.startswith(" ") else text

    def json(self):
        return {
            "version": "1.0",
            "added_tokens": [{"id": self.vocab[t], "content": t, "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": True} for t in self.added],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": SPACE}, {"type": "Replace", "pattern": {"String": " "},
                                                        "content": SPACE}]},
            "pre_tokenizer": None,
            "post_processor": {"type": "TemplateProcessing",
                               "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                          {"Sequence": {"id": "A", "type_id": 0}}],
                               "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}, {"type": "ByteFallback"},
                {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                      "vocab": self.vocab, "merges": [f"{a} {b}" for a, b in self.merges]},
        }


class ByteLevelBpe:
    def __init__(self):
        words = [tuple(B2U[b] for b in w.encode()) for w in QWEN2_PY.findall(TRAIN_TEXT)]
        self.merges = learn_merges(words, 50)
        tokens = [B2U[b] for b in range(256)] + [a + b for a, b in self.merges]
        self.vocab = {t: i for i, t in enumerate(tokens)}
        self.ranks = {m: i for i, m in enumerate(self.merges)}
        self.added = {t: len(tokens) + i for i, t in enumerate(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])}

    def encode(self, text, bos=False):
        ids = []
        for piece in split_added(text, self.added):
            if isinstance(piece, int):
                ids.append(piece)
                continue
            for word in QWEN2_PY.findall(piece):
                ids += [self.vocab[s] for s in merge_word([B2U[b] for b in word.encode()], self.ranks)]
        return ids

    def decode(self, ids):
        inv = {i: t for t, i in self.vocab.items()}
        return bytes(U2B[c] for i in ids if i in inv for c in inv[i]).decode("utf-8")

    def json(self):
        return {
            "version": "1.0",
            "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True} for t, i in self.added.items()],
            "normalizer": {"type": "NFC"},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
            "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
                               "use_regex": False},
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                      "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                      "vocab": self.vocab, "merges": [[a, b] for a, b in self.merges]},
        }


def random_weights(cfg, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    d, f, h, kv = cfg["hidden_size"], cfg["intermediate_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = d // h
    r = lambda *shape, s=0.2: (torch.randn(*shape, generator=g) * s).to(dtype)
    w = {"model.embed_tokens.weight": r(cfg["vocab_size"], d, s=0.5), "model.norm.weight": 1 + r(d, s=0.1)}
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = r(cfg["vocab_size"], d)
    bias = cfg["model_type"] == "qwen2"
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w.update({p + "input_layernorm.weight": 1 + r(d, s=0.1), p + "post_attention_layernorm.weight": 1 + r(d, s=0.1),
                  p + "self_attn.q_proj.weight": r(h * hd, d), p + "self_attn.k_proj.weight": r(kv * hd, d),
                  p + "self_attn.v_proj.weight": r(kv * hd, d), p + "self_attn.o_proj.weight": r(d, h * hd),
                  p + "mlp.gate_proj.weight": r(f, d), p + "mlp.up_proj.weight": r(f, d),
                  p + "mlp.down_proj.weight": r(d, f)})
        if bias:
            w.update({p + "self_attn.q_proj.bias": r(h * hd, s=0.1), p + "self_attn.k_proj.bias": r(kv * hd, s=0.1),
                      p + "self_attn.v_proj.bias": r(kv * hd, s=0.1)})
    return w


def inverse_frequencies(cfg, hd):
    """HF's rope init functions: default, linear, llama3 (modeling_rope_utils.py)."""
    inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.int64).float() / hd))
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "linear":
        return inv / scaling["factor"]
    if kind == "llama3":
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old / low, old / high
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < high_wavelen) * ~(wavelen > low_wavelen)
        return torch.where(medium, smoothed, scaled)
    return inv


def rotate_half(x):
    a, b = x.chunk(2, -1)
    return torch.cat([-b, a], -1)


def forward(cfg, w, ids):
    """LlamaModel / MistralModel / Qwen2Model + LM head (eager attention), float32."""
    w = {k: v.float() for k, v in w.items()}
    t, d, h, kv = len(ids), cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, eps = d // h, cfg["rms_norm_eps"]
    rms = lambda x, p: w[p] * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))
    lin = lambda x, p: x @ w[p + ".weight"].T + (w[p + ".bias"] if p + ".bias" in w else 0)
    freqs = torch.arange(t).float()[:, None] * inverse_frequencies(cfg, hd)[None, :]
    cos, sin = torch.cat([freqs, freqs], -1).cos(), torch.cat([freqs, freqs], -1).sin()
    rope = lambda z: z * cos + rotate_half(z) * sin
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    visible = j <= i
    if cfg.get("sliding_window"):
        visible &= i - j < cfg["sliding_window"]
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        y = rms(x, p + "input_layernorm.weight")
        q = rope(lin(y, p + "self_attn.q_proj").view(t, h, hd).transpose(0, 1))
        k = rope(lin(y, p + "self_attn.k_proj").view(t, kv, hd).transpose(0, 1)).repeat_interleave(h // kv, 0)
        v = lin(y, p + "self_attn.v_proj").view(t, kv, hd).transpose(0, 1).repeat_interleave(h // kv, 0)
        att = (q @ k.transpose(-1, -2) / math.sqrt(hd)).masked_fill(~visible, float("-inf")).softmax(-1)
        x = x + lin((att @ v).transpose(0, 1).reshape(t, h * hd), p + "self_attn.o_proj")
        y = rms(x, p + "post_attention_layernorm.weight")
        x = x + lin(torch.nn.functional.silu(lin(y, p + "mlp.gate_proj")) * lin(y, p + "mlp.up_proj"),
                    p + "mlp.down_proj")
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    return rms(x, "model.norm.weight") @ head.T


def continuation_text(tok, ids, cont):
    """The text the app prints after the prompt: the continuation decoded after the prompt, not alone (a
    SentencePiece decoder drops the space of the text's first token only)."""
    return tok.decode(ids + cont)[len(tok.decode(ids)):]


def greedy(cfg, w, ids, n):
    out = list(ids)
    for _ in range(n):
        out.append(int(forward(cfg, w, out)[-1].argmax()))
    return out[len(ids):]


DTYPE_NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def safetensors_bytes(tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        blob = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        header[name] = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write_model(name, cfg, w, tokenizer, shards):
    folder = os.path.join(DATA, name)
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        os.remove(os.path.join(folder, f))
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer.json(), f, ensure_ascii=False)
    names = sorted(w)
    if shards == 1:
        with open(os.path.join(folder, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(w))
        return
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: w[n] for n in names[s::shards]}
        weight_map.update({n: file for n in part})
        with open(os.path.join(folder, file), "wb") as f:
            f.write(safetensors_bytes(part))
    index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in w.values())},
             "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)


def rounded(t):
    return [round(v, 6) for v in t.flatten().tolist()]


def main():
    sp, bl = SentencePieceBpe(), ByteLevelBpe()
    llama = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 32,
             "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "max_position_embeddings": 64,
             "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                              "original_max_position_embeddings": 64},
             "tie_word_embeddings": False, "vocab_size": len(sp.vocab), "bos_token_id": 1, "eos_token_id": 2,
             "torch_dtype": "float16", "hidden_act": "silu"}
    qwen2 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 32,
             "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1,
             "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "max_position_embeddings": 128, "rope_scaling": None,
             "tie_word_embeddings": True, "vocab_size": len(bl.vocab) + len(bl.added) + 5,
             "bos_token_id": bl.added["<|endoftext|>"], "eos_token_id": bl.added["<|im_end|>"],
             "use_sliding_window": False, "sliding_window": 32, "torch_dtype": "bfloat16", "hidden_act": "silu"}
    mistral = dict(llama, architectures=["MistralForCausalLM"], model_type="mistral", sliding_window=4,
                   rope_scaling={"type": "linear", "factor": 2.0})
    w_llama = random_weights(llama, 1, torch.float16)
    w_qwen2 = random_weights(qwen2, 2, torch.bfloat16)
    # Byte, special and padding tokens get (near-)zero logits, so the greedy continuations are whole
    # merged tokens: valid UTF-8 that the app's printed text can be compared with.
    w_llama["lm_head.weight"][:3 + 256] = 0
    embed = w_qwen2["model.embed_tokens.weight"]
    embed[:256] *= 0.05
    embed[len(bl.vocab):] *= 0.05
    write_model("llm_llama", llama, w_llama, sp, shards=1)
    write_model("llm_qwen2", qwen2, w_qwen2, bl, shards=2)
    ref = {}
    with torch.no_grad():
        for name, cfg, w, tok in [("llama", llama, w_llama, sp), ("qwen2", qwen2, w_qwen2, bl),
                                  ("mistral", mistral, w_llama, sp)]:
            ids = tok.encode(PROMPT, bos=True)
            cont = greedy(cfg, w, ids, GREEDY_TOKENS)
            ref[name] = {"prompt": PROMPT, "ids": ids, "logits": rounded(forward(cfg, w, ids)),
                         "greedy": cont, "greedy_text": continuation_text(tok, ids, cont)}
        ref["mistral"]["config"] = mistral
        for name, tok in [("llama", sp), ("qwen2", bl)]:
            ref[name]["cases"] = [{"text": c, "ids": tok.encode(c, bos=False)} for c in CASES]
    with open(os.path.join(DATA, "llm_reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False)
    print(f"wrote {DATA}: llama vocab {len(sp.vocab)}, qwen2 vocab {len(bl.vocab)}, prompt {ref['llama']['ids']}")


if __name__ == "__main__":
    main()
