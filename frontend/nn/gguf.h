// tg::nn GGUF IO: gguf_read (the header: metadata and tensor table) and gguf_load (the tensors too, lazy
// and memory-mapped, quantized weights kept quantized). The format llama.cpp and most local models use
// (github.com/ggml-org/ggml/blob/master/docs/gguf.md); docs/gguf.md says what is read and how.
#ifndef TG_FRONTEND_NN_GGUF_H_
#define TG_FRONTEND_NN_GGUF_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frontend/nn/quant.h"
#include "frontend/nn/state.h"

namespace tg::nn {

// The value types of GGUF metadata, by their ids in the file.
enum class GGUFValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// "UINT8", "STRING", "ARRAY"...
const char* gguf_value_type_name(GGUFValueType type);

// One metadata value. Integers keep their signedness (unsigned in |data| as uint64_t, signed as int64_t),
// floats are double, arrays keep their declared element type even when empty.
struct GGUFValue {
  GGUFValueType type = GGUFValueType::kUint8;
  GGUFValueType element_type = GGUFValueType::kUint8;  // for kArray
  std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<GGUFValue>> data;

  // The value as each C++ type; tg::Error naming both types when it is not one. as_int takes any integer
  // type (an unsigned one above INT64_MAX is an error), as_float any integer or float type.
  int64_t as_int() const;
  double as_float() const;
  bool as_bool() const;
  const std::string& as_string() const;
  const std::vector<GGUFValue>& as_array() const;
  std::vector<std::string> as_strings() const;  // an array of strings
};

// One entry of the tensor table. |shape| is row-major (ggml's dims reversed: ne[0], the innermost, last),
// |offset| is where its bytes start in its file (already past the aligned data start; a split model's
// later entries count in their own part).
struct GGUFTensorInfo {
  std::string name;
  GGMLType type;
  Shape shape;
  uint64_t offset;
  uint64_t nbytes;
};

struct GGUFHeader {
  uint32_t version;    // 2 or 3
  uint64_t alignment;  // general.alignment, 32 when absent
  uint64_t data_start;
  std::map<std::string, GGUFValue> metadata;
  std::vector<GGUFTensorInfo> tensors;  // in file order

  // metadata.at(key) with a tg::Error naming the key when it is absent.
  const GGUFValue& at(const std::string& key) const;
};

// What gguf_load returns. |tensors| holds each tensor by name as a lazy tensor of its shape: F32 F16 BF16
// F64 I8 I16 I32 I64 in their own dtype, Q8_0 Q4_0 Q4_K Q6_K as ggml_dequantize(|blocks|.at(name)) in float32.
// |blocks| holds the quantized ones' raw blocks (the file's bytes as uint16 words, (n, block_bytes / 2)):
// those bytes are all that goes
// to the device, and each use of the float tensor dequantizes inside its consumer's kernel. Realizing a
// quantized tensor by itself (or loading it into a model's parameter) makes a float32 copy.
struct GGUFFile {
  GGUFHeader header;
  StateDict tensors;
  StateDict blocks;
};

// The header of |path|: every field is checked (magic, version 2 or 3, each count and length against the
// bytes left in the file and the load budget, value types, the alignment, each tensor's type, dims,
// offset and size against the data the file holds, overlaps); a malformed file is a tg::Error naming the
// field and its size. Tensor data is not touched.
GGUFHeader gguf_read(const std::string& path);

// gguf_read, then a tensor per entry on |device| ("" = default). The file is memory-mapped and each
// tensor's bytes are copied to the device the first time a realize needs them (the mapping lives as long
// as an unread tensor does; the file must not change meanwhile). A split model (split.count > 1, from
// llama.cpp's gguf-split) is loaded from its first part, PREFIX-00001-of-0000N.gguf: the tensors of every
// part, the first part's metadata, |header.tensors| holding every part's entries.
GGUFFile gguf_load(const std::string& path, std::string_view device = "");

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_GGUF_H_
