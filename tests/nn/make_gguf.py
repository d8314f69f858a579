#!/usr/bin/python3
"""Writes the GGUF files of tests/nn/gguf_test.cc and the seeds of tests/fuzzers/gguf_fuzzer.cc, with numpy.

The writer follows the GGUF specification (github.com/ggml-org/ggml/blob/master/docs/gguf.md); the quantizers
follow ggml's reference ones in ggml-quants.c (quantize_row_q8_0_ref, quantize_row_q4_0_ref,
quantize_row_q4_K_ref with make_qkx2_quants, quantize_row_q6_K_ref with make_qx_quants); the reference values are each tensor's bytes dequantized
here (dequantize_row_*), in numpy, and written beside the file as JSON.

Run from anywhere: /usr/bin/python3 tests/nn/make_gguf.py
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SEEDS = os.path.join(HERE, "..", "fuzzers", "corpus", "gguf_fuzzer")

# ggml.h's type ids and (elements, bytes) per block.
F32, F16, Q4_0, Q8_0, Q4_K, Q6_K, I8, I32, BF16 = 0, 1, 2, 8, 12, 14, 24, 26, 30
BLOCKS = {F32: (1, 4), F16: (1, 2), BF16: (1, 2), I8: (1, 1), I32: (1, 4), Q8_0: (32, 34), Q4_0: (32, 18), Q4_K: (256, 144),
          Q6_K: (256, 210)}

# GGUF metadata value types.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
SCALAR_FORMATS = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
                  BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    if vtype == STRING:
        return gguf_string(value)
    if vtype == ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(SCALAR_FORMATS[vtype], value)


def gguf_header(metadata, tensors, version=3, alignment=32):
    """The bytes before the tensor data, padded to |alignment|: metadata [(key, vtype, value)] and the table of
    tensors [(name, ggml_type, shape (row-major), raw bytes)], each placed at the next aligned offset."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    for key, vtype, value in metadata:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    offset = 0
    for name, ggml_type, shape, raw in tensors:
        dims = list(reversed(shape))  # ne[0] is the innermost axis
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", ggml_type, offset)
        offset += len(raw) + (-len(raw) % alignment)
    return out + b"\0" * (-len(out) % alignment)


def gguf_data(raw, alignment=32):
    """One tensor's bytes as they follow the header: padded to |alignment|."""
    return raw + b"\0" * (-len(raw) % alignment)


def gguf_bytes(metadata, tensors, version=3, alignment=32):
    """A whole GGUF file: gguf_header, then every tensor's bytes."""
    return gguf_header(metadata, tensors, version, alignment) + b"".join(gguf_data(t[3], alignment) for t in tensors)


def llama_permute(w, heads):
    """convert_hf_to_gguf.py's LlamaModel.permute of Q and K rows: HF's rotate_half halves -> ggml's interleaved
    pairs."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def fp16(x):
    return np.float32(np.float16(x))


def round_away(x):  # C roundf
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize_q8_0(x):
    out = b""
    for block in x.reshape(-1, 32):
        amax = np.max(np.abs(block))
        d = np.float32(amax / 127)
        inv = np.float32(1 / d) if d else np.float32(0)
        q = round_away(block * inv).astype(np.int8)
        out += np.float16(d).tobytes() + q.tobytes()
    return out


def dequantize_q8_0(raw):
    b = np.frombuffer(raw, np.uint8).reshape(-1, 34)
    d = b[:, :2].copy().view(np.float16).astype(np.float32)
    return (d * b[:, 2:].copy().view(np.int8).astype(np.float32)).reshape(-1)


def quantize_q4_0(x):
    out = b""
    for block in x.reshape(-1, 32):
        m = block[np.argmax(np.abs(block))]
        d = np.float32(m / -8)
        inv = np.float32(1 / d) if d else np.float32(0)
        q = np.minimum(15, np.trunc(block * inv + np.float32(8.5))).astype(np.uint8)
        out += np.float16(d).tobytes() + (q[:16] | (q[16:] << 4)).astype(np.uint8).tobytes()
    return out


def dequantize_q4_0(raw):
    b = np.frombuffer(raw, np.uint8).reshape(-1, 18)
    d = b[:, :2].copy().view(np.float16).astype(np.float32)
    q = np.concatenate([b[:, 2:] & 0xF, b[:, 2:] >> 4], axis=1).astype(np.float32)
    return (d * (q - 8)).reshape(-1)


def nearest_int(v):  # ggml's nearest_int rounds half to even
    return int(np.rint(np.float32(v)))


def make_qkx2_quants(x, weights, nmax=15, rmin=-1.0, rdelta=0.1, nstep=20):
    """ggml-quants.c make_qkx2_quants (use_mad false): a scale and a min for one sub-block, and its levels."""
    n = len(x)
    mn, mx = min(float(x.min()), 0.0), float(x.max())
    sum_w, sum_x = float(weights.sum()), float((weights * x).sum())
    if mx == mn:
        return 0.0, -mn, np.zeros(n, np.uint8)
    iscale = nmax / (mx - mn)
    scale = 1 / iscale
    L = np.array([max(0, min(nmax, nearest_int(iscale * (v - mn)))) for v in x])
    best_error = float((weights * (scale * L + mn - x) ** 2).sum())
    for step in range(nstep + 1):
        iscale = (rmin + rdelta * step + nmax) / (mx - mn)
        laux = np.array([max(0, min(nmax, nearest_int(iscale * (v - mn)))) for v in x])
        sum_l, sum_l2, sum_xl = float((weights * laux).sum()), float((weights * laux * laux).sum()), float((weights * laux * x).sum())
        D = sum_w * sum_l2 - sum_l * sum_l
        if D > 0:
            this_scale = (sum_w * sum_xl - sum_x * sum_l) / D
            this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D
            if this_min > 0:
                this_min, this_scale = 0.0, sum_xl / sum_l2
            err = float((weights * (this_scale * laux + this_min - x) ** 2).sum())
            if err < best_error:
                L, best_error, scale, mn = laux, err, this_scale, this_min
    return scale, -mn, L.astype(np.uint8)


def q4_k_scale_min(j, packed):  # get_scale_min_k4
    if j < 4:
        return packed[j] & 63, packed[j + 4] & 63
    return (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4), (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4)


def quantize_q4_k(x):
    out = b""
    for block in x.reshape(-1, 256):
        scales, mins = np.zeros(8), np.zeros(8)
        for j in range(8):
            sub = block[32 * j:32 * j + 32].astype(np.float64)
            weights = np.sqrt((sub * sub).sum() / 32) + np.abs(sub)
            scales[j], mins[j], _ = make_qkx2_quants(sub, weights)
        max_scale, max_min = scales.max(), mins.max()
        inv_scale = 63 / max_scale if max_scale > 0 else 0.0
        inv_min = 63 / max_min if max_min > 0 else 0.0
        packed = [0] * 12
        for j in range(8):
            ls, lm = min(63, nearest_int(inv_scale * scales[j])), min(63, nearest_int(inv_min * mins[j]))
            if j < 4:
                packed[j], packed[j + 4] = ls, lm
            else:
                packed[j + 4] = (ls & 0xF) | ((lm & 0xF) << 4)
                packed[j - 4] |= (ls >> 4) << 6
                packed[j] |= (lm >> 4) << 6
        d, dmin = np.float16(max_scale / 63), np.float16(max_min / 63)
        levels = np.zeros(256, np.uint8)
        for j in range(8):
            sc, m = q4_k_scale_min(j, packed)
            dj = float(np.float32(d)) * sc
            if dj == 0:
                continue
            dm = float(np.float32(dmin)) * m
            for i in range(32):
                levels[32 * j + i] = max(0, min(15, nearest_int((block[32 * j + i] + dm) / dj)))
        qs = np.zeros(128, np.uint8)
        for j in range(4):
            qs[32 * j:32 * j + 32] = levels[64 * j:64 * j + 32] | (levels[64 * j + 32:64 * j + 64] << 4)
        out += d.tobytes() + dmin.tobytes() + bytes(packed) + qs.tobytes()
    return out


def dequantize_q4_k(raw):
    values = []
    for b in np.frombuffer(raw, np.uint8).reshape(-1, 144):
        d, dmin = b[0:2].copy().view(np.float16).astype(np.float32)[0], b[2:4].copy().view(np.float16).astype(np.float32)[0]
        packed, qs = [int(v) for v in b[4:16]], b[16:]
        for j in range(4):
            group = qs[32 * j:32 * j + 32]
            for half, nibbles in ((0, group & 0xF), (1, group >> 4)):
                sc, m = q4_k_scale_min(2 * j + half, packed)
                values.append(d * np.float32(sc) * nibbles.astype(np.float32) - dmin * np.float32(m))
    return np.concatenate(values).astype(np.float32)


def make_qx_quants(x, nmax):
    """ggml-quants.c make_qx_quants with rmse_type 1 and no importance weights: a symmetric scale for one
    sub-block and its levels L in [0, 2 nmax), searched over 19 candidate scales."""
    x = x.astype(np.float64)
    i = int(np.argmax(np.abs(x)))  # the first of the largest magnitude
    if abs(x[i]) < 1e-15:
        return 0.0, np.zeros(len(x), np.int64)
    mx = x[i]
    w = x * x

    def levels(iscale):
        return np.array([max(-nmax, min(nmax - 1, nearest_int(iscale * v))) for v in x])

    l = levels(-nmax / mx)
    sumlx, suml2 = float((w * x * l).sum()), float((w * l * l).sum())
    scale = sumlx / suml2 if suml2 else 0.0
    best, L = scale * sumlx, l + nmax
    for step in range(-9, 10):
        if step == 0:
            continue
        l = levels(-(nmax + 0.1 * step) / mx)
        sumlx, suml2 = float((w * x * l).sum()), float((w * l * l).sum())
        if suml2 > 0 and sumlx * sumlx > best * suml2:
            L, scale = l + nmax, sumlx / suml2
            best = scale * sumlx
    return scale, L


def quantize_q6_k(x):
    """quantize_row_q6_K_ref: sixteen sub-blocks of 16 with an int8 scale each, a float16 d, 6-bit levels."""
    out = b""
    for block in x.reshape(-1, 256):
        scales, L = np.zeros(16), np.zeros(256, np.int64)
        for ib in range(16):
            scales[ib], L[16 * ib:16 * ib + 16] = make_qx_quants(block[16 * ib:16 * ib + 16], 32)
        ib_max = int(np.argmax(np.abs(scales)))
        if abs(scales[ib_max]) < 1e-15:
            out += bytes(210)
            continue
        iscale = -128.0 / scales[ib_max]
        d = np.float16(1 / iscale)
        sc = np.array([min(127, nearest_int(iscale * v)) for v in scales], np.int8)
        for j in range(16):
            dj = float(np.float32(d)) * int(sc[j])
            if dj == 0:
                continue
            for i in range(16):
                L[16 * j + i] = max(-32, min(31, nearest_int(block[16 * j + i] / dj))) + 32
        ql, qh = np.zeros(128, np.uint8), np.zeros(64, np.uint8)
        for half in range(2):
            Lh = L[128 * half:128 * half + 128]
            for l in range(32):
                ql[64 * half + l] = (Lh[l] & 0xF) | ((Lh[l + 64] & 0xF) << 4)
                ql[64 * half + l + 32] = (Lh[l + 32] & 0xF) | ((Lh[l + 96] & 0xF) << 4)
                qh[32 * half + l] = (Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) | ((Lh[l + 64] >> 4) << 4) | ((Lh[l + 96] >> 4) << 6)
        out += ql.tobytes() + qh.tobytes() + sc.tobytes() + d.tobytes()
    return out


def dequantize_q6_k(raw):
    """dequantize_row_q6_K."""
    values = []
    for b in np.frombuffer(raw, np.uint8).reshape(-1, 210):
        ql, qh, sc = b[:128].astype(np.int32), b[128:192].astype(np.int32), b[192:208].copy().view(np.int8)
        d = b[208:210].copy().view(np.float16).astype(np.float32)[0]
        y = np.zeros(256, np.float32)
        for half in range(2):
            for l in range(32):
                q = [(ql[64 * half + l] & 0xF) | (((qh[32 * half + l] >> 0) & 3) << 4),
                     (ql[64 * half + l + 32] & 0xF) | (((qh[32 * half + l] >> 2) & 3) << 4),
                     (ql[64 * half + l] >> 4) | (((qh[32 * half + l] >> 4) & 3) << 4),
                     (ql[64 * half + l + 32] >> 4) | (((qh[32 * half + l] >> 6) & 3) << 4)]
                for g in range(4):
                    s = sc[8 * half + l // 16 + 2 * g]
                    y[128 * half + 32 * g + l] = d * np.float32(s) * np.float32(q[g] - 32)
        values.append(y)
    return np.concatenate(values)


def bf16_bytes(x):
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()


def bf16_values(raw):
    return (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)


def tensor(name, ggml_type, x):
    """(entry for gguf_bytes, reference values as a flat list)."""
    x = np.asarray(x)
    if ggml_type == F32:
        raw = x.astype(np.float32).tobytes(); ref = np.frombuffer(raw, np.float32)
    elif ggml_type == F16:
        raw = x.astype(np.float16).tobytes(); ref = np.frombuffer(raw, np.float16).astype(np.float32)
    elif ggml_type == BF16:
        raw = bf16_bytes(x); ref = bf16_values(raw)
    elif ggml_type == I8:
        raw = x.astype(np.int8).tobytes(); ref = np.frombuffer(raw, np.int8)
    elif ggml_type == I32:
        raw = x.astype(np.int32).tobytes(); ref = np.frombuffer(raw, np.int32)
    elif ggml_type == Q8_0:
        raw = quantize_q8_0(x.astype(np.float32)); ref = dequantize_q8_0(raw)
    elif ggml_type == Q4_0:
        raw = quantize_q4_0(x.astype(np.float32)); ref = dequantize_q4_0(raw)
    elif ggml_type == Q4_K:
        raw = quantize_q4_k(x.astype(np.float32)); ref = dequantize_q4_k(raw)
    else:
        raw = quantize_q6_k(x.astype(np.float32)); ref = dequantize_q6_k(raw)
    assert len(raw) == x.size // BLOCKS[ggml_type][0] * BLOCKS[ggml_type][1]
    return (name, ggml_type, list(x.shape), raw), ref


# Every metadata value type, arrays of scalars, of strings, of arrays and an empty one.
METADATA = [
    ("general.architecture", STRING, "llama"),
    ("general.name", STRING, "tiny \u00e9t\u00e9 \U0001F600"),
    ("test.u8", UINT8, 200), ("test.i8", INT8, -100), ("test.u16", UINT16, 60000), ("test.i16", INT16, -30000),
    ("test.u32", UINT32, 4000000000), ("test.i32", INT32, -2000000000), ("test.f32", FLOAT32, 0.25),
    ("test.bool", BOOL, True), ("test.u64", UINT64, 2 ** 63 + 5), ("test.i64", INT64, -(2 ** 62)),
    ("test.f64", FLOAT64, 3.141592653589793),
    ("test.ints", ARRAY, (INT32, [1, -2, 3])),
    ("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "\u2581the", "\u00e9"])),
    ("test.nested", ARRAY, (ARRAY, [(UINT8, [1, 2]), (UINT8, [])])),
    ("test.empty", ARRAY, (FLOAT32, [])),
    ("llama.block_count", UINT32, 2),
]


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def main():
    rng = np.random.default_rng(21)
    entries, refs = [], {}

    def add(name, ggml_type, x):
        entry, ref = tensor(name, ggml_type, x)
        entries.append(entry)
        refs[name] = {"type": ggml_type, "shape": entry[2], "values": [float(v) for v in ref]}
        return ref

    add("f32", F32, rng.standard_normal((3, 5)))
    add("f16", F16, rng.standard_normal((2, 4)))
    add("bf16", BF16, rng.standard_normal(6))
    add("i8", I8, rng.integers(-128, 128, 7))
    add("i32", I32, rng.integers(-2 ** 31, 2 ** 31, (2, 3)))
    add("q8_0", Q8_0, rng.standard_normal((4, 64)))
    add("q4_0", Q4_0, rng.standard_normal((3, 32)))
    add("q4_k", Q4_K, rng.standard_normal((2, 256)) + 0.3)
    # Weights and an input for the quantized matmuls: y = x @ dequantized(W).T, in float64 then float32.
    matmuls = {}
    for wname, wtype, (rows, cols) in (("w_q8_0", Q8_0, (16, 128)), ("w_q4_0", Q4_0, (16, 128)), ("w_q4_k", Q4_K, (8, 512))):
        w = add(wname, wtype, rng.standard_normal((rows, cols)) * 0.5).reshape(rows, cols)
        x = rng.standard_normal((4, cols)).astype(np.float32)
        y = (x.astype(np.float64) @ w.astype(np.float64).T).astype(np.float32)
        matmuls[wname] = {"x": [float(v) for v in x.reshape(-1)], "x_shape": [4, cols], "y": [float(v) for v in y.reshape(-1)]}
    # Q6_K from a generator of its own, so the draws above (and the files they make) stay as they were.
    rng6 = np.random.default_rng(6)
    add("q6_k", Q6_K, rng6.standard_normal((2, 256)))
    w = add("w_q6_k", Q6_K, rng6.standard_normal((8, 512)) * 0.5).reshape(8, 512)
    x = rng6.standard_normal((4, 512)).astype(np.float32)
    y = (x.astype(np.float64) @ w.astype(np.float64).T).astype(np.float32)
    matmuls["w_q6_k"] = {"x": [float(v) for v in x.reshape(-1)], "x_shape": [4, 512], "y": [float(v) for v in y.reshape(-1)]}
    write(os.path.join(DATA, "gguf_types.gguf"), gguf_bytes(METADATA, entries))
    with open(os.path.join(DATA, "gguf_types.json"), "w") as f:
        json.dump({"tensors": refs, "matmuls": matmuls}, f)

    # Version 2 with a 64-byte alignment.
    v2_entries = [tensor("a", F32, np.arange(6, dtype=np.float32).reshape(2, 3))[0],
                  tensor("b", Q8_0, np.linspace(-1, 1, 32))[0]]
    write(os.path.join(DATA, "gguf_v2.gguf"),
          gguf_bytes([("general.alignment", UINT32, 64), ("general.architecture", STRING, "test")], v2_entries,
                     version=2, alignment=64))

    # A model split in two parts (llama.cpp's gguf-split keys), each with one tensor.
    for no, (name, values) in enumerate((("first", [1.0, 2.0]), ("second", [3.0, 4.0, 5.0]))):
        split = [("split.no", UINT16, no), ("split.count", UINT16, 2), ("split.tensors.count", INT32, 2)]
        write(os.path.join(DATA, "gguf_split-%05d-of-00002.gguf" % (no + 1)),
              gguf_bytes(split, [tensor(name, F32, np.array(values))[0]]))

    # Fuzzer seeds: small files (the fuzzer reads tensors of files under 2048 bytes back).
    os.makedirs(SEEDS, exist_ok=True)
    small = [tensor("f32", F32, rng.standard_normal(3))[0], tensor("f16", F16, rng.standard_normal(2))[0],
             tensor("bf16", BF16, rng.standard_normal(2))[0], tensor("q8_0", Q8_0, rng.standard_normal(32))[0],
             tensor("q4_0", Q4_0, rng.standard_normal(32))[0]]
    write(os.path.join(SEEDS, "every_type_small"), gguf_bytes(METADATA[:4] + METADATA[13:17], small))
    write(os.path.join(SEEDS, "q4_k_one_block"), gguf_bytes([], [tensor("q4_k", Q4_K, rng.standard_normal(256))[0]]))
    write(os.path.join(SEEDS, "v2_aligned_64"), gguf_bytes([("general.alignment", UINT32, 64)], small[:2], version=2, alignment=64))
    write(os.path.join(SEEDS, "metadata_only"), gguf_bytes(METADATA, []))
    write(os.path.join(SEEDS, "q6_k_one_block"),
          gguf_bytes([], [tensor("q6_k", Q6_K, np.random.default_rng(7).standard_normal(256))[0]]))


if __name__ == "__main__":
    main()
