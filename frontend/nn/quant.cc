// GGML dequantization as tensor expressions (frontend/nn/quant.h), after ggml's dequantize_row_* in
// ggml-quants.c and tinygrad's ggml_data_to_tensor: every step is a slice, a shift, a mask, a cast or a
// multiply of the blocks' words, so the scheduler fuses the whole expression into whatever consumes it.
#include "frontend/nn/quant.h"

#include <utility>
#include <vector>

#include "frontend/devices.h"
#include "ir/error.h"

namespace tg::nn {
namespace {

struct TypeName {
  uint32_t id;
  const char* name;
};

// ggml.h's enum ggml_type (ids 4, 5 and 31-33 were removed from ggml and name nothing).
constexpr TypeName kTypeNames[] = {
    {0, "F32"},      {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},    {6, "Q5_0"},    {7, "Q5_1"},
    {8, "Q8_0"},     {9, "Q8_1"},    {10, "Q2_K"},   {11, "Q3_K"},   {12, "Q4_K"},   {13, "Q5_K"},
    {14, "Q6_K"},    {15, "Q8_K"},   {16, "IQ2_XXS"}, {17, "IQ2_XS"}, {18, "IQ3_XXS"}, {19, "IQ1_S"},
    {20, "IQ4_NL"},  {21, "IQ3_S"},  {22, "IQ2_S"},  {23, "IQ4_XS"}, {24, "I8"},     {25, "I16"},
    {26, "I32"},     {27, "I64"},    {28, "F64"},    {29, "IQ1_M"},  {30, "BF16"},   {34, "TQ1_0"},
    {35, "TQ2_0"},   {39, "MXFP4"},
};

// The columns [begin, end) of a (rows, columns) tensor.
Tensor Columns(const Tensor& t, int64_t begin, int64_t end) { return t.shrink({{0, t.shape()[0]}, {begin, end}}); }

// The bytes [begin, end) of every block (both even) as uint8, in file order: the low byte of each
// little-endian word comes first.
Tensor BlockBytes(const Tensor& words, int64_t begin, int64_t end) {
  Tensor w = Columns(words, begin / 2, end / 2);
  Tensor low = (w & 0xff).cast(dtypes::uint8).unsqueeze(2), high = (w >> 8).cast(dtypes::uint8).unsqueeze(2);
  return low.cat({high}, 2).reshape({words.shape()[0], end - begin});
}

// IEEE half bits (uint32 in [0, 65535]) as float32, in integer ops only: for devices without float16.
// Normal numbers and inf/NaN move their exponent and mantissa into float32's fields; subnormals are
// mantissa * 2^-24, exact in float32.
Tensor HalfBitsToFloat(const Tensor& bits) {
  Tensor sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  Tensor wide_exponent = (exponent == 31).where(Scalar(int64_t{255}), exponent + 112);
  Tensor normal = ((sign << 31) | (wide_exponent << 23) | (mantissa << 13)).bitcast(dtypes::float32);
  Tensor subnormal = mantissa.float_() * (1.0 / 16777216.0) * (1.0 - sign.float_() * 2.0);
  return (exponent == 0).where(subnormal, normal);
}

// The float16 at word |at| of every block as float32, repeated |repeat| times: (rows, repeat). The
// repeat comes first, so the conversion is computed per output element: on devices without float16 it
// is a dozen integer ops, a chain the scheduler would otherwise store as a broadcast operand.
Tensor HalfAt(const Tensor& words, int64_t at, int64_t repeat) {
  Tensor bits = Columns(words, at, at + 1).expand({words.shape()[0], repeat});
  if (device_supports(words.device(), dtypes::float16)) return bits.bitcast(dtypes::float16).float_();
  return HalfBitsToFloat(bits.cast(dtypes::uint32));
}

// Bytes as the int8 they encode, as int32 (integer ops: OpenCL C cannot bitcast a promoted byte), and
// in float32.
Tensor SignedByteValues(const Tensor& bytes) { return (bytes.cast(dtypes::int32) ^ 0x80) - 128; }
Tensor SignedBytes(const Tensor& bytes) { return SignedByteValues(bytes).float_(); }

// Q8_0 (block_q8_0): a float16 scale d, then 32 int8 quants q; value = d * q.
Tensor DequantizeQ8_0(const Tensor& words) { return HalfAt(words, 0, 32) * SignedBytes(BlockBytes(words, 2, 34)); }

// Q4_0 (block_q4_0): a float16 scale d, then 16 bytes whose low nibbles are elements 0-15 and high
// nibbles elements 16-31; value = d * (nibble - 8).
Tensor DequantizeQ4_0(const Tensor& words) {
  Tensor packed = BlockBytes(words, 2, 18);
  Tensor nibbles = (packed & 0xf).cat({packed >> 4}, 1);
  return HalfAt(words, 0, 32) * (nibbles.float_() - 8.0);
}

// The bytes [begin, end) of every block (both even), each repeated |repeat| times along a last axis:
// (rows, end - begin, repeat). The repeat comes first, on the words, so that what is computed from these
// bytes is computed per output element, not judged a broadcast chain worth storing
// (compiler/schedule/fusion_rules.h: a broadcast operand is stored when its chain is long).
Tensor BlockBytesRepeated(const Tensor& words, int64_t begin, int64_t end, int64_t repeat) {
  int64_t rows = words.shape()[0], n = (end - begin) / 2;
  Tensor w = Columns(words, begin / 2, end / 2).reshape({rows, n, 1, 1}).expand({rows, n, 1, repeat});
  return (w & 0xff).cat({w >> 8}, 2).reshape({rows, 2 * n, repeat});
}

// Q4_K (block_q4_K): float16 d and dmin, 12 bytes packing eight 6-bit scales and eight 6-bit mins
// (get_scale_min_k4), then 128 bytes of nibbles: each 32-byte group holds sub-blocks 2j (low nibbles)
// and 2j+1 (high nibbles). value = d * scale[s] * nibble - dmin * min[s] for sub-block s of 32.
Tensor DequantizeQ4_K(const Tensor& words) {
  int64_t rows = words.shape()[0];
  Tensor d = HalfAt(words, 0, 256).reshape({rows, 8, 32}), dmin = HalfAt(words, 1, 256).reshape({rows, 8, 32});
  // Scale bytes 0-3, 4-7 and 8-11, each (rows, 4, 32): one row of 32 per sub-block element.
  Tensor low_scales = BlockBytesRepeated(words, 4, 8, 32), low_mins = BlockBytesRepeated(words, 8, 12, 32),
         high = BlockBytesRepeated(words, 12, 16, 32);
  Tensor scales = (low_scales & 63).cat({(high & 0xf) | ((low_scales >> 6) << 4)}, 1);
  Tensor mins = (low_mins & 63).cat({(high >> 4) | ((low_mins >> 6) << 4)}, 1);
  Tensor packed = BlockBytes(words, 16, 144).reshape({rows, 4, 32});
  Tensor nibbles = (packed & 0xf).stack({packed >> 4}, 2).reshape({rows, 8, 32});
  Tensor values = d * scales.float_() * nibbles.float_() - dmin * mins.float_();
  return values.reshape({rows, 256});
}

// Q6_K (block_q6_K): 128 bytes of low nibbles, 64 bytes of high bit pairs, sixteen int8 scales, then a
// float16 d. Each half of 128 elements takes 64 low-nibble bytes and 32 high-bits bytes: element 32g + l
// of the half (g = 0..3, l = 0..31) is the low (g < 2) or high (g >= 2) nibble of byte 32 (g % 2) + l
// and bits 2g, 2g+1 of high-bits byte l. value = d * scale[element / 16] * (q - 32).
Tensor DequantizeQ6_K(const Tensor& words) {
  int64_t rows = words.shape()[0];
  Tensor low = BlockBytes(words, 0, 128).reshape({rows, 2, 2, 32});
  Tensor nibbles = (low & 0xf).cat({low >> 4}, 2);  // (rows, half, g, l)
  Tensor high = BlockBytes(words, 128, 192).reshape({rows, 2, 1, 32});
  Tensor pairs = (high & 3).cat({(high >> 2) & 3, (high >> 4) & 3, high >> 6}, 2);
  Tensor q = (nibbles | (pairs << 4)).reshape({rows, 256}).float_() - 32.0;
  Tensor scales = SignedBytes(BlockBytesRepeated(words, 192, 208, 16).reshape({rows, 256}));
  return HalfAt(words, 104, 256) * scales * q;
}

std::string ShapeText(const Shape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::optional<GGMLLayout> ggml_layout(uint32_t type) {
  switch (static_cast<GGMLType>(type)) {
    case GGMLType::kF32: return GGMLLayout{1, 4, false};
    case GGMLType::kF16: return GGMLLayout{1, 2, false};
    case GGMLType::kBF16: return GGMLLayout{1, 2, false};
    case GGMLType::kF64: return GGMLLayout{1, 8, false};
    case GGMLType::kI8: return GGMLLayout{1, 1, false};
    case GGMLType::kI16: return GGMLLayout{1, 2, false};
    case GGMLType::kI32: return GGMLLayout{1, 4, false};
    case GGMLType::kI64: return GGMLLayout{1, 8, false};
    case GGMLType::kQ8_0: return GGMLLayout{32, 34, true};
    case GGMLType::kQ4_0: return GGMLLayout{32, 18, true};
    case GGMLType::kQ4_K: return GGMLLayout{256, 144, true};
    case GGMLType::kQ6_K: return GGMLLayout{256, 210, true};
  }
  return std::nullopt;
}

std::string ggml_type_name(uint32_t type) {
  for (const TypeName& t : kTypeNames)
    if (t.id == type) return t.name;
  return "unknown";
}

const char* ggml_supported_types() { return "F32 F16 BF16 F64 I8 I16 I32 I64 Q8_0 Q4_0 Q4_K Q6_K"; }

namespace {

void CheckBlocks(const char* fn, const Tensor& blocks, GGMLType type, const Shape& shape) {
  std::optional<GGMLLayout> layout = ggml_layout(static_cast<uint32_t>(type));
  if (!layout || !layout->quantized)
    throw Error(std::string(fn) + ": " + ggml_type_name(static_cast<uint32_t>(type)) +
                " is not a quantized type; quantized: Q8_0 Q4_0 Q4_K Q6_K");
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (blocks.dtype() != dtypes::uint16 || blocks.ndim() != 2 || blocks.shape()[1] * 2 != layout->block_bytes ||
      blocks.shape()[0] * layout->block_elements != numel || shape.empty() || shape.back() % layout->block_elements != 0)
    throw Error(std::string(fn) + ": " + ggml_type_name(static_cast<uint32_t>(type)) + " needs uint16 blocks of shape (n, " +
                std::to_string(layout->block_bytes / 2) + ") for n * " + std::to_string(layout->block_elements) +
                " elements whose innermost axis is a multiple of " + std::to_string(layout->block_elements) +
                "; got " + blocks.dtype().name() + " blocks of shape " + ShapeText(blocks.shape()) + " for shape " +
                ShapeText(shape));
}

}  // namespace

Tensor ggml_dequantize(const Tensor& blocks, GGMLType type, const Shape& shape) {
  CheckBlocks("ggml_dequantize", blocks, type, shape);
  Tensor values = type == GGMLType::kQ8_0   ? DequantizeQ8_0(blocks)
                  : type == GGMLType::kQ4_0 ? DequantizeQ4_0(blocks)
                  : type == GGMLType::kQ4_K ? DequantizeQ4_K(blocks)
                                            : DequantizeQ6_K(blocks);
  return values.reshape(shape);
}

// Q8_0's words hold each quant as half a word, so a kernel vectorized along a row reads every lane's
// byte by a shift of its own word and every block's scale per lane (W12's Q8_0 decode: 7.5x slower per
// matvec than over the planes). Split once, the quants are int8 a vector loads whole and the scale one
// float16 per 32 of them (the file's own bits: a decode step reads the file's 34 bytes a block), or one
// float32 on a device without float16.
Tensor ggml_dequantize_repacked(const Tensor& blocks, GGMLType type, const Shape& shape) {
  CheckBlocks("ggml_dequantize_repacked", blocks, type, shape);
  if (type != GGMLType::kQ8_0) return ggml_dequantize(blocks, type, shape);
  Tensor quants = SignedByteValues(BlockBytes(blocks, 2, 34)).cast(dtypes::int8).realize();
  Tensor scales = device_supports(blocks.device(), dtypes::float16)
                      ? Columns(blocks, 0, 1).bitcast(dtypes::float16).realize()
                      : HalfAt(blocks, 0, 1).realize();
  return (quants.float_() * scales.float_()).reshape(shape);
}

}  // namespace tg::nn
