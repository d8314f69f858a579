#!/usr/bin/python3
"""Writes tests/apps/data/llm_{llama,qwen2}_tokenizer.gguf: the tokenizers of make_llm_reference.py's two test
models as GGUF metadata, the way llama.cpp's convert_hf_to_gguf.py writes them, and
tests/apps/data/llm_gguf_tokenizers.json: the ids the GGUF semantics give for test strings. Also the seeds
of tests/fuzzers/llm_tokenizer_fuzzer.cc: each tokenizer.json and each GGUF file ('G' first) with a text.

- llama: tokenizer.ggml.model "llama" (SentencePiece BPE). tokens in id order, scores (merged tokens ranked
  by their merge, highest first), token_type (<unk> UNKNOWN, <s> </s> CONTROL, <0xXX> BYTE, the rest
  NORMAL), bos/eos/unknown ids, add_bos_token. No merges: they are derived from the scores as Hugging Face's
  SentencePieceExtractor does (every split of a token into two tokens, ranked by the token's score).
- qwen2: tokenizer.ggml.model "gpt2", pre "qwen2", the byte-level vocabulary and merges, the added tokens as
  CONTROL, padded with [PADn] UNUSED tokens to the model's vocab_size as convert_hf_to_gguf.py pads.

The ids are computed here with bpe_reference.py's merge loop over the derived merges (llama) or the file's
merges (qwen2), and the script checks they equal make_llm_reference.py's ids of the same strings.

Run: /usr/bin/python3 tests/apps/make_llm_gguf_tokenizers.py (after make_llm_reference.py; numpy and torch).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "fuzzers", "corpus", "llm_tokenizer_fuzzer")
SEED_TEXT = "The fox's den, caf\u00e9 \u65e5\u672c 2024!\n<s>hi</s><|im_start|>x<|im_end|>".encode()
sys.path.insert(0, os.path.join(HERE, "..", "nn"))

from bpe_reference import merge_word  # noqa: E402
from make_gguf import ARRAY, BOOL, FLOAT32, INT32, STRING, UINT32, gguf_bytes  # noqa: E402
from make_llm_reference import CASES, DATA, PROMPT, SPACE, ByteLevelBpe, SentencePieceBpe, split_added  # noqa: E402

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
# Beyond make_llm_reference.py's cases: byte fallback inside a word, an added token mid-text, added tokens
# back to back, and text that is only spaces.
EXTRA_CASES = ["x\u00e9\u4e2dy", "fox</s>den", "<s><s>", "   "]


def derived_merges(vocab, scores):
    """HF's SentencePieceExtractor.extract(vocab_scores): pairs (a, b) with a + b a token, by score (highest
    first, stable), each token's own pairs by (id of a, id of b)."""
    merges = []
    for token in sorted(vocab, key=vocab.get):
        local = [(token[:i], token[i:], scores[vocab[token]]) for i in range(1, len(token))
                 if token[:i] in vocab and token[i:] in vocab]
        merges += sorted(local, key=lambda m: (vocab[m[0]], vocab[m[1]]))
    merges.sort(key=lambda m: m[2], reverse=True)
    return [(a, b) for a, b, _ in merges]


def llama_gguf(sp):
    tokens = sorted(sp.vocab, key=sp.vocab.get)
    merged = {a + b: rank for rank, (a, b) in enumerate(sp.merges)}
    scores = [-float(merged[t]) if t in merged else 0.0 for t in tokens]
    types = [UNKNOWN if t == "<unk>" else CONTROL if t in sp.added else
             BYTE if t.startswith("<0x") and len(t) == 6 else NORMAL for t in tokens]
    metadata = [
        ("general.architecture", STRING, "llama"),
        ("tokenizer.ggml.model", STRING, "llama"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        ("tokenizer.ggml.scores", ARRAY, (FLOAT32, scores)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
        ("tokenizer.ggml.bos_token_id", UINT32, sp.vocab["<s>"]),
        ("tokenizer.ggml.eos_token_id", UINT32, sp.vocab["</s>"]),
        ("tokenizer.ggml.unknown_token_id", UINT32, sp.vocab["<unk>"]),
        ("tokenizer.ggml.add_bos_token", BOOL, True),
        ("tokenizer.ggml.add_eos_token", BOOL, False),
    ]
    ranks = {m: i for i, m in enumerate(derived_merges(sp.vocab, scores))}

    def encode(text):
        ids = [sp.vocab["<s>"]]
        for piece in split_added(text, sp.added):  # llama.cpp prefixes a space after each added token too
            if isinstance(piece, int):
                ids.append(piece)
                continue
            for s in merge_word(SPACE + piece.replace(" ", SPACE), ranks):
                ids += [sp.vocab[s]] if s in sp.vocab else [sp.vocab[f"<0x{b:02X}>"] for b in s.encode()]
        return ids

    return gguf_bytes(metadata, []), encode


def qwen2_gguf(bl, vocab_size):
    tokens = sorted(bl.vocab, key=bl.vocab.get) + sorted(bl.added, key=bl.added.get)
    types = [NORMAL] * len(bl.vocab) + [CONTROL] * len(bl.added)
    tokens += [f"[PAD{i}]" for i in range(len(tokens), vocab_size)]
    types += [UNUSED] * (len(tokens) - len(types))
    metadata = [
        ("general.architecture", STRING, "qwen2"),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.pre", STRING, "qwen2"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, types)),
        ("tokenizer.ggml.merges", ARRAY, (STRING, [f"{a} {b}" for a, b in bl.merges])),
        ("tokenizer.ggml.bos_token_id", UINT32, bl.added["<|endoftext|>"]),
        ("tokenizer.ggml.eos_token_id", UINT32, bl.added["<|im_end|>"]),
        ("tokenizer.ggml.padding_token_id", UINT32, bl.added["<|endoftext|>"]),
        ("tokenizer.ggml.add_bos_token", BOOL, False),
    ]
    return gguf_bytes(metadata, []), lambda text: bl.encode(text)


def main():
    sp, bl = SentencePieceBpe(), ByteLevelBpe()
    with open(os.path.join(DATA, "llm_qwen2", "config.json")) as f:
        qwen2_vocab_size = json.load(f)["vocab_size"]
    out = {}
    for name, (data, encode), tok in [("llama", llama_gguf(sp), sp), ("qwen2", qwen2_gguf(bl, qwen2_vocab_size), bl)]:
        with open(os.path.join(DATA, f"llm_{name}_tokenizer.gguf"), "wb") as f:
            f.write(data)
        texts = [PROMPT] + CASES + EXTRA_CASES
        out[name] = {"cases": [{"text": t, "ids": encode(t)} for t in texts]}
        for t in texts:  # the GGUF tokenizer is the tokenizer.json's: same ids (BOS aside)
            assert encode(t) == tok.encode(t, bos=True), (name, t, encode(t), tok.encode(t, bos=True))
        os.makedirs(SEEDS, exist_ok=True)
        with open(os.path.join(DATA, f"llm_{name}", "tokenizer.json"), "rb") as f:
            json_bytes = f.read()
        with open(os.path.join(SEEDS, f"{name}_tokenizer_json"), "wb") as f:
            f.write(json_bytes + b"\xff" + SEED_TEXT)
        with open(os.path.join(SEEDS, f"{name}_gguf"), "wb") as f:
            f.write(b"G" + data + b"\xff" + SEED_TEXT)
    with open(os.path.join(DATA, "llm_gguf_tokenizers.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
    print(f"wrote {DATA}/llm_{{llama,qwen2}}_tokenizer.gguf and llm_gguf_tokenizers.json")


if __name__ == "__main__":
    main()
