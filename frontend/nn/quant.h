// GGML block quantization (Q8_0, Q4_0, Q4_K, Q6_K): each type's block layout and its dequantization as a
// lazy tensor expression over the raw blocks. The blocks stay on the device as the file's bytes (held as
// little-endian uint16 words, every block being an even number of bytes with its float16 scales at
// even offsets); the float values exist only inside the kernels that use them, so a decode step's
// `x.matmul(ggml_dequantize(...).transpose())` reads the quantized bytes in the matmul's own kernel
// (frontend/nn/gguf.h loads such blocks from GGUF files; docs/gguf.md).
#ifndef TG_FRONTEND_NN_QUANT_H_
#define TG_FRONTEND_NN_QUANT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "frontend/tensor.h"

namespace tg::nn {

// The ggml tensor types by their ids in ggml.h (the ids GGUF files store). Only the ones this project
// reads are named; any other id is refused by name where it is known (ggml_type_name).
enum class GGMLType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ8_0 = 8,
  kQ4_K = 12,
  kQ6_K = 14,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kBF16 = 30,
};

// How a type stores its elements: |block_elements| consecutive values along the innermost axis take
// |block_bytes| bytes (1 element per itemsize bytes for the plain types).
struct GGMLLayout {
  int64_t block_elements;
  int64_t block_bytes;
  bool quantized;
};

// The layout of a type this project reads; nullopt for any other id.
std::optional<GGMLLayout> ggml_layout(uint32_t type);

// ggml's name of any type id it has defined ("Q6_K", "IQ2_XS"...), or "unknown".
std::string ggml_type_name(uint32_t type);

// The supported type names, for error messages: "F32 F16 BF16 F64 I8 I16 I32 I64 Q8_0 Q4_0 Q4_K Q6_K".
const char* ggml_supported_types();

// The float32 values of |blocks| (uint16, shape (n, block_bytes / 2), the raw bytes of n blocks of a
// quantized |type|) as a tensor of
// |shape| (numel = n * block_elements, the innermost axis a multiple of block_elements). Lazy: nothing
// is computed until the result is realized or used in a kernel. tg::Error for a non-quantized type or
// mismatched shapes.
Tensor ggml_dequantize(const Tensor& blocks, GGMLType type, const Shape& shape);

// The same values over the blocks repacked once, now, into what a kernel vectorized along a row reads
// with plain vector loads: Q8_0 as int8 quants (n, 32) and its float16 scales (n, 1), 34 bytes a block
// as in the file (float32 scales, 36 bytes, on a device without float16; the blocks themselves are no
// longer needed); the other types as
// ggml_dequantize. The same tg::Error for mismatched blocks.
Tensor ggml_dequantize_repacked(const Tensor& blocks, GGMLType type, const Shape& shape);

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_QUANT_H_
