#!/usr/bin/env python3
"""Writes the seed corpus of //tests/fuzzers:onnx_fuzzer: a few tiny ONNX models, encoded by hand (protobuf
wire format, field numbers from onnx.proto) so no python package is needed.
  tests/fuzzers/make_onnx_seeds.py [OUT_DIR]   (default: tests/fuzzers/corpus/onnx_fuzzer)"""
import os
import struct
import sys


def varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_int(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return varint((num << 3) | 2) + varint(len(b)) + b


def value_info(name, elem_type, dims):  # ValueInfoProto{name=1, type=2{tensor_type=1{elem_type=1, shape=2}}}
    shape = b"".join(field_bytes(1, field_int(1, d) if isinstance(d, int) else field_bytes(2, d)) for d in dims)
    tensor = field_int(1, elem_type) + field_bytes(2, shape)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor))


def node(op, inputs, outputs, attrs=b""):  # NodeProto{input=1, output=2, name=3, op_type=4, attribute=5}
    return b"".join(field_bytes(1, i) for i in inputs) + b"".join(field_bytes(2, o) for o in outputs) + \
        field_bytes(3, op.lower()) + field_bytes(4, op) + attrs


def attr_int(name, v):  # AttributeProto{name=1, i=3, type=20 (INT=2)}
    return field_bytes(5, field_bytes(1, name) + field_int(3, v) + field_int(20, 2))


def attr_ints(name, vs):  # ints=8, type INTS=7
    return field_bytes(5, field_bytes(1, name) + b"".join(field_int(8, v) for v in vs) + field_int(20, 7))


def float_tensor(name, dims, data):  # TensorProto{dims=1, data_type=2 (FLOAT=1), name=8, raw_data=9}
    return b"".join(field_int(1, d) for d in dims) + field_int(2, 1) + field_bytes(8, name) + \
        field_bytes(9, struct.pack("<%df" % len(data), *data))


def int64_tensor(name, dims, data):  # INT64=7, int64_data=7
    return b"".join(field_int(1, d) for d in dims) + field_int(2, 7) + field_bytes(8, name) + \
        b"".join(field_int(7, v) for v in data)


def model(nodes, inputs, outputs, inits=(), opset=13):
    graph = b"".join(field_bytes(1, n) for n in nodes) + field_bytes(2, "g") + \
        b"".join(field_bytes(5, t) for t in inits) + \
        b"".join(field_bytes(11, v) for v in inputs) + b"".join(field_bytes(12, v) for v in outputs)
    opset_import = field_bytes(1, "") + field_int(2, opset)
    return field_int(1, 8) + field_bytes(7, graph) + field_bytes(8, opset_import)


F, I64 = 1, 7
SEEDS = {
    "add": model([node("Add", ["x", "y"], ["z"])],
                 [value_info("x", F, [2, 3]), value_info("y", F, [3])], [value_info("z", F, [2, 3])]),
    "matmul_relu_batch": model(
        [node("MatMul", ["x", "W"], ["xw"]), node("Relu", ["xw"], ["y"])],
        [value_info("x", F, ["batch", 3])], [value_info("y", F, ["batch", 2])],
        [float_tensor("W", [3, 2], [1, -1, 2, 0, 0, 1])]),
    "reshape_transpose": model(
        [node("Reshape", ["x", "s"], ["r"]), node("Transpose", ["r"], ["y"], attr_ints("perm", [1, 0]))],
        [value_info("x", F, [2, 3])], [value_info("y", F, [3, 2])], [int64_tensor("s", [2], [3, -1])]),
    "reduce_softmax": model(
        [node("ReduceSum", ["x", "axes"], ["s"], attr_int("keepdims", 1)), node("Softmax", ["s"], ["y"])],
        [value_info("x", F, [2, 4])], [value_info("y", F, [2, 1])], [int64_tensor("axes", [1], [1])]),
    "conv": model(
        [node("Conv", ["x", "w"], ["y"], attr_ints("pads", [1, 1, 1, 1]))],
        [value_info("x", F, [1, 1, 3, 3])], [value_info("y", F, [1, 1, 3, 3])],
        [float_tensor("w", [1, 1, 3, 3], [0, 1, 0, 1, -4, 1, 0, 1, 0])]),
    "gather_cast": model(
        [node("Gather", ["x", "i"], ["g"]), node("Cast", ["g"], ["y"], attr_int("to", I64))],
        [value_info("x", F, [4, 2])], [value_info("y", I64, [2, 2])], [int64_tensor("i", [2], [3, -1])]),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "onnx_fuzzer")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
