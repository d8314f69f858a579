#!/usr/bin/python3
"""Writes W12's model (docs/benchmarks.md): a random LLaMA of llama2.c's TinyStories 110M shape (dim 768,
12 layers, 12 heads, 12 KV heads, FFN 2048, vocab 32000, rope theta 10000, RMSNorm eps 1e-5, untied LM head),
initialised as llama2.c's model.py does (normal, std 0.02; wo and w3, HF's o_proj and up_proj, std
0.02 / sqrt(2 * layers); norms 1), in three files of one folder:

  config.json + model.safetensors   the Hugging Face layout, float32 (what the fp32 workloads and the PyTorch
                                    peer load)
  w12-f16.gguf                      llama.cpp's layout (convert_hf_to_gguf.py --outtype f16): matrices F16,
                                    norms F32
  w12-q8_0.gguf                     the same with matrices in Q8_0 (ggml's quantize_row_q8_0_ref)

The GGUF files store q_proj and k_proj with their rows permuted as convert_hf_to_gguf.py's LlamaModel.permute
does (each head's rotary halves interleaved, the order llama.cpp's rope expects); a GGUF loader undoes it.
Seeded, so the three files hold the same weights; idempotent: a file that exists is left alone.

  /usr/bin/python3 tools/bench/make_w12_model.py [FOLDER]   (default $TG_MODEL_DIR/w12, else
                                                            ~/.cache/tinygrad-cc-models/w12; ~1 GB, ~20 s)
"""
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "nn"))
import make_gguf  # noqa: E402  (GGUF's value encoding and ggml's reference Q8_0 quantizer)
from make_gguf import ARRAY, F16, F32, FLOAT32, INT32, Q8_0, STRING, UINT32  # noqa: E402

SEED = 110
DIM, LAYERS, HEADS, KV_HEADS, FFN, VOCAB = 768, 12, 12, 12, 2048, 32000
CONTEXT, ROPE_THETA, EPS = 1024, 10000.0, 1e-5
HEAD_DIM = DIM // HEADS
ALIGNMENT = 32
FILE_TYPE = {F16: 1, Q8_0: 7}  # llama.cpp's LLAMA_FTYPE_MOSTLY_F16, LLAMA_FTYPE_MOSTLY_Q8_0

CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": DIM,
          "intermediate_size": FFN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
          "num_key_value_heads": KV_HEADS, "rms_norm_eps": EPS, "rope_theta": ROPE_THETA,
          "max_position_embeddings": CONTEXT, "tie_word_embeddings": False, "vocab_size": VOCAB,
          "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "torch_dtype": "float32"}


def default_folder():
    root = os.environ.get("TG_MODEL_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tinygrad-cc-models")
    return os.path.join(root, "w12")


def random_weights():
    """HF names -> float32 numpy arrays, in llama2.c's initialisation."""
    g = torch.Generator().manual_seed(SEED)
    normal = lambda *shape, std=0.02: (torch.randn(*shape, generator=g) * std).numpy()
    scaled = 0.02 / np.sqrt(2 * LAYERS)
    ones = lambda n: np.ones(n, np.float32)
    w = {"model.embed_tokens.weight": normal(VOCAB, DIM)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        w.update({p + "input_layernorm.weight": ones(DIM),
                  p + "self_attn.q_proj.weight": normal(HEADS * HEAD_DIM, DIM),
                  p + "self_attn.k_proj.weight": normal(KV_HEADS * HEAD_DIM, DIM),
                  p + "self_attn.v_proj.weight": normal(KV_HEADS * HEAD_DIM, DIM),
                  p + "self_attn.o_proj.weight": normal(DIM, HEADS * HEAD_DIM, std=scaled),
                  p + "post_attention_layernorm.weight": ones(DIM),
                  p + "mlp.gate_proj.weight": normal(FFN, DIM),
                  p + "mlp.up_proj.weight": normal(FFN, DIM, std=scaled),
                  p + "mlp.down_proj.weight": normal(DIM, FFN)})
    w["model.norm.weight"] = ones(DIM)
    w["lm_head.weight"] = normal(VOCAB, DIM)
    return w


def write_atomically(path, write):
    tmp = path + ".partial"
    with open(tmp, "wb") as f:
        write(f)
    os.replace(tmp, path)


def write_safetensors(f, tensors):
    header, offset = {}, 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + t.nbytes]}
        offset += t.nbytes
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    f.write(struct.pack("<Q", len(text)) + text)
    for t in tensors.values():
        f.write(np.ascontiguousarray(t, np.float32).tobytes())


def quantize_q8_0(x):
    """ggml's quantize_row_q8_0_ref over every block of 32 at once: d = max|x| / 127 as F16, q = round(x / d)."""
    blocks = x.astype(np.float32).reshape(-1, 32)
    d = (np.abs(blocks).max(axis=1) / np.float32(127)).astype(np.float32)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = make_gguf.round_away(blocks * inv[:, None]).astype(np.int8)
    out = np.empty((blocks.shape[0], 34), np.uint8)
    out[:, :2] = d.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def gguf_tensors(w, matrix_type):
    """(GGUF name, ggml type, row-major shape, bytes) in convert_hf_to_gguf.py's names and order."""
    def entry(name, x):
        if x.ndim == 1:
            return name, F32, list(x.shape), x.astype(np.float32).tobytes()
        raw = x.astype(np.float16).tobytes() if matrix_type == F16 else quantize_q8_0(x)
        return name, matrix_type, list(x.shape), raw

    out = [entry("token_embd.weight", w["model.embed_tokens.weight"])]
    for i in range(LAYERS):
        p, b = f"model.layers.{i}.", f"blk.{i}."
        out += [entry(b + "attn_norm.weight", w[p + "input_layernorm.weight"]),
                entry(b + "attn_q.weight", make_gguf.llama_permute(w[p + "self_attn.q_proj.weight"], HEADS)),
                entry(b + "attn_k.weight", make_gguf.llama_permute(w[p + "self_attn.k_proj.weight"], KV_HEADS)),
                entry(b + "attn_v.weight", w[p + "self_attn.v_proj.weight"]),
                entry(b + "attn_output.weight", w[p + "self_attn.o_proj.weight"]),
                entry(b + "ffn_norm.weight", w[p + "post_attention_layernorm.weight"]),
                entry(b + "ffn_gate.weight", w[p + "mlp.gate_proj.weight"]),
                entry(b + "ffn_up.weight", w[p + "mlp.up_proj.weight"]),
                entry(b + "ffn_down.weight", w[p + "mlp.down_proj.weight"])]
    out += [entry("output_norm.weight", w["model.norm.weight"]), entry("output.weight", w["lm_head.weight"])]
    return out


def vocabulary():
    """LLaMA's SentencePiece layout: <unk> <s> </s>, the 256 byte tokens, then placeholder pieces."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    tokens += [f"\u2581w{i}" for i in range(VOCAB - len(tokens))]
    types = [2, 3, 3] + [6] * 256 + [1] * (VOCAB - 259)  # UNKNOWN, CONTROL, BYTE, NORMAL
    scores = [0.0] * 259 + [-float(i) for i in range(VOCAB - 259)]
    return tokens, scores, types


def gguf_metadata(matrix_type):
    tokens, scores, types = vocabulary()
    return [("general.architecture", STRING, "llama"), ("general.name", STRING, "w12 random llama 110M"),
            ("general.alignment", UINT32, ALIGNMENT), ("general.file_type", UINT32, FILE_TYPE[matrix_type]),
            ("llama.context_length", UINT32, CONTEXT), ("llama.embedding_length", UINT32, DIM),
            ("llama.block_count", UINT32, LAYERS), ("llama.feed_forward_length", UINT32, FFN),
            ("llama.rope.dimension_count", UINT32, HEAD_DIM), ("llama.attention.head_count", UINT32, HEADS),
            ("llama.attention.head_count_kv", UINT32, KV_HEADS),
            ("llama.attention.layer_norm_rms_epsilon", FLOAT32, EPS), ("llama.rope.freq_base", FLOAT32, ROPE_THETA),
            ("llama.vocab_size", UINT32, VOCAB),
            ("tokenizer.ggml.model", STRING, "llama"), ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
            ("tokenizer.ggml.scores", ARRAY, (FLOAT32, scores)), ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
            ("tokenizer.ggml.bos_token_id", UINT32, 1), ("tokenizer.ggml.eos_token_id", UINT32, 2),
            ("tokenizer.ggml.unknown_token_id", UINT32, 0)]


def write_gguf(f, metadata, tensors):
    """GGUF v3, streamed tensor by tensor (make_gguf.py's gguf_bytes would hold the whole file in memory)."""
    f.write(make_gguf.gguf_header(metadata, tensors, alignment=ALIGNMENT))
    for _, _, _, raw in tensors:
        f.write(make_gguf.gguf_data(raw, ALIGNMENT))


def check_quantizer():
    """The vectorized Q8_0 quantizer gives ggml's reference bytes (make_gguf.py's per-block loop)."""
    x = np.random.default_rng(SEED).standard_normal((4, 96)).astype(np.float32) * 0.02
    x[1, :32] = 0  # an all-zero block: d = 0
    assert quantize_q8_0(x) == make_gguf.quantize_q8_0(x), "vectorized Q8_0 differs from ggml's reference"


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else default_folder()
    os.makedirs(folder, exist_ok=True)
    files = {"config.json": None, "model.safetensors": None, "w12-f16.gguf": F16, "w12-q8_0.gguf": Q8_0}
    missing = [name for name in files if not os.path.exists(os.path.join(folder, name))]
    if not missing:
        print(f"make_w12_model: {folder} is complete")
        return
    check_quantizer()
    w = random_weights()
    for name in missing:
        path = os.path.join(folder, name)
        if name == "config.json":
            write_atomically(path, lambda f: f.write(json.dumps(CONFIG, indent=2).encode()))
        elif name == "model.safetensors":
            write_atomically(path, lambda f: write_safetensors(f, w))
        else:
            write_atomically(path, lambda f: write_gguf(f, gguf_metadata(files[name]), gguf_tensors(w, files[name])))
        print(f"make_w12_model: wrote {path} ({os.path.getsize(path) / 2**20:.0f} MiB)")
    params = sum(t.size for t in w.values())
    print(f"make_w12_model: {params / 1e6:.1f}M parameters")


if __name__ == "__main__":
    main()
