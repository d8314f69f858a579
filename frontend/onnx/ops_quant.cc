// Quantization ONNX ops: QuantizeLinear/DequantizeLinear (per tensor, per axis, blocked),
// DynamicQuantizeLinear, MatMulInteger and QLinearMatMul. Integer math runs in int32 as ONNX Runtime
// does; rounding is half to even.
#include "frontend/onnx/onnx_tensor.h"
#include "frontend/onnx/op_registry.h"

namespace tg::onnx {
namespace {

using Ctx = OpContext;

Tensor ClampCast(const Tensor& x, DType to) {
  return x.clamp(Scalar(DTypeMinInt(to)), Scalar(DTypeMaxInt(to))).cast(to);
}

// A scale or zero point laid along |axis| of x (per-axis), repeated per block (blocked), or as it is.
Tensor AlongAxis(const Tensor& v, const Tensor& x, int axis, int64_t block) {
  if (v.numel() == 1) return v.reshape({});
  if (block > 0) return v.repeat_interleave(block, axis);
  Shape s(x.ndim(), 1);
  s[axis] = v.numel();
  return v.reshape(s);
}

Tensor Quantize(Ctx& c) {
  const Tensor& x = c.in(0);
  DType out = c.has(2) ? c.in(2).dtype() : c.attr_int("output_dtype", 0) ? DTypeFromOnnx(c.attr_int("output_dtype", 0)) : dtypes::uint8;
  int axis = c.in(1).numel() == 1 ? 0 : NormAxis(c.attr_int("axis", 1), x.ndim(), c);  // scalar scale: no axis
  int64_t block = c.attr_int("block_size", 0);
  Tensor scale = AlongAxis(c.in(1), x, axis, block);
  Tensor y = (x.cast(dtypes::float32) / scale.cast(dtypes::float32)).round();
  if (c.has(2)) y = y + AlongAxis(c.in(2), x, axis, block).cast(dtypes::float32);
  return ClampCast(y, out);
}

Tensor Dequantize(Ctx& c) {
  const Tensor& x = c.in(0);
  int axis = c.in(1).numel() == 1 ? 0 : NormAxis(c.attr_int("axis", 1), x.ndim(), c);
  int64_t block = c.attr_int("block_size", 0);
  Tensor v = x.cast(dtypes::int32);
  if (c.has(2)) v = v - AlongAxis(c.in(2), x, axis, block).cast(dtypes::int32);
  Tensor scale = AlongAxis(c.in(1), x, axis, block);
  return (v.cast(scale.dtype()) * scale);
}

std::vector<Tensor> DynamicQuantize(Ctx& c) {
  Tensor x = c.in(0);
  Tensor hi = x.max().maximum(0.0f), lo = x.min().minimum(0.0f);
  Tensor scale = (hi - lo) / 255.0f;
  Tensor zero = ClampCast((-lo / scale).round(), dtypes::uint8);
  Tensor y = ClampCast((x / scale).round() + zero.cast(dtypes::float32), dtypes::uint8);
  return {y, scale, zero};
}

Tensor Centered(const Ctx& c, size_t value, size_t zero_point) {
  Tensor v = c.in(value).cast(dtypes::int32);
  if (!c.has(zero_point)) return v;
  Tensor zp = c.in(zero_point).cast(dtypes::int32);
  // A per-row (A) or per-column (B) zero point: a 1-D zp of A aligns with A's rows.
  if (value == 0 && zp.ndim() == 1 && zp.numel() > 1) zp = zp.reshape({zp.numel(), 1});
  return v - zp;
}

Tensor QLinearMatMul(Ctx& c) {
  Tensor a = c.in(0).cast(dtypes::int32) - c.in(2).cast(dtypes::int32);
  Tensor b = c.in(3).cast(dtypes::int32) - c.in(5).cast(dtypes::int32);
  Tensor acc = a.matmul(b).cast(dtypes::float32);
  Tensor y = (acc * (c.in(1).cast(dtypes::float32) * c.in(4).cast(dtypes::float32) / c.in(6).cast(dtypes::float32))).round() +
             c.in(7).cast(dtypes::float32);
  return ClampCast(y, c.in(7).dtype());
}

}  // namespace

void RegisterQuantOps(OpRegistry& r) {
  r.add("QuantizeLinear", [](Ctx& c) { return One(Quantize(c)); });
  r.add("DequantizeLinear", [](Ctx& c) { return One(Dequantize(c)); });
  r.add("DynamicQuantizeLinear", DynamicQuantize);
  r.add("MatMulInteger", [](Ctx& c) { return One(Centered(c, 0, 2).matmul(Centered(c, 1, 3))); });
  r.add("QLinearMatMul", [](Ctx& c) { return One(QLinearMatMul(c)); });
}

}  // namespace tg::onnx
