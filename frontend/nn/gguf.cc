// tg::nn GGUF IO. The header is untrusted: every count and length is checked against the bytes left in
// the file and the load budget before anything of that size is allocated, and every tensor's range
// against the data section, so a malformed file is a tg::Error and never an out-of-bounds read.
#include "frontend/nn/gguf.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "frontend/load_budget.h"
#include "frontend/nn/mapped_file.h"

namespace tg::nn {
namespace {

constexpr int kMaxArrayDepth = 8;  // arrays of arrays; GGUF writers nest one deep
constexpr uint32_t kMaxDims = 4;   // GGML_MAX_DIMS

// The fewest bytes one value of |type| takes in a file: what bounds an array's declared count.
uint64_t MinEncodedBytes(GGUFValueType type) {
  switch (type) {
    case GGUFValueType::kUint8: case GGUFValueType::kInt8: case GGUFValueType::kBool: return 1;
    case GGUFValueType::kUint16: case GGUFValueType::kInt16: return 2;
    case GGUFValueType::kUint32: case GGUFValueType::kInt32: case GGUFValueType::kFloat32: return 4;
    case GGUFValueType::kUint64: case GGUFValueType::kInt64: case GGUFValueType::kFloat64: return 8;
    case GGUFValueType::kString: return 8;   // the length
    case GGUFValueType::kArray: return 12;   // element type and count
  }
  return 1;
}

std::optional<DType> NativeDType(GGMLType type) {
  switch (type) {
    case GGMLType::kF32: return dtypes::float32;
    case GGMLType::kF16: return dtypes::float16;
    case GGMLType::kBF16: return dtypes::bfloat16;
    case GGMLType::kF64: return dtypes::float64;
    case GGMLType::kI8: return dtypes::int8;
    case GGMLType::kI16: return dtypes::int16;
    case GGMLType::kI32: return dtypes::int32;
    case GGMLType::kI64: return dtypes::int64;
    default: return std::nullopt;
  }
}

// A little-endian cursor over the header; every read is bounds-checked and a short file names the field.
class HeaderReader {
 public:
  HeaderReader(const std::string& path, const MappedFile& file) : path_(path), file_(file), budget_(LoadBudgetBytes()) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw Error("gguf_read: " + path_ + " is not a valid GGUF file: " + what);
  }
  std::string Where() const { return "gguf_read: " + path_; }
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return file_.size() - pos_; }

  uint64_t Unsigned(int bytes, const std::string& field) {
    Need(static_cast<uint64_t>(bytes), field);
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | file_.data()[pos_ + i];
    pos_ += bytes;
    return v;
  }
  uint32_t U32(const std::string& field) { return static_cast<uint32_t>(Unsigned(4, field)); }
  uint64_t U64(const std::string& field) { return Unsigned(8, field); }

  std::string String(const std::string& field) {
    uint64_t n = U64(field + " (its length)");
    if (n > left())
      Fail(field + " is a string of " + std::to_string(n) + " bytes at offset " + std::to_string(pos_) + ", past the end of the " +
           std::to_string(file_.size()) + "-byte file");
    if (n > budget_) CheckLoadBudget(Where(), field + " (a string)", n);  // a vocabulary is 10^5 strings: no text when fine
    std::string s(reinterpret_cast<const char*>(file_.data() + pos_), n);
    pos_ += n;
    return s;
  }

  GGUFValue Value(uint32_t type_id, const std::string& field, int depth) {
    if (type_id > static_cast<uint32_t>(GGUFValueType::kFloat64))
      Fail(field + " has value type " + std::to_string(type_id) + "; allowed: 0-12 (UINT8 INT8 UINT16 INT16 UINT32 INT32 "
           "FLOAT32 BOOL STRING ARRAY UINT64 INT64 FLOAT64)");
    GGUFValue v;
    v.type = static_cast<GGUFValueType>(type_id);
    switch (v.type) {
      case GGUFValueType::kUint8: v.data = Unsigned(1, field); break;
      case GGUFValueType::kUint16: v.data = Unsigned(2, field); break;
      case GGUFValueType::kUint32: v.data = Unsigned(4, field); break;
      case GGUFValueType::kUint64: v.data = Unsigned(8, field); break;
      case GGUFValueType::kInt8: v.data = static_cast<int64_t>(static_cast<int8_t>(Unsigned(1, field))); break;
      case GGUFValueType::kInt16: v.data = static_cast<int64_t>(static_cast<int16_t>(Unsigned(2, field))); break;
      case GGUFValueType::kInt32: v.data = static_cast<int64_t>(static_cast<int32_t>(Unsigned(4, field))); break;
      case GGUFValueType::kInt64: v.data = static_cast<int64_t>(Unsigned(8, field)); break;
      case GGUFValueType::kFloat32: {
        uint32_t bits = static_cast<uint32_t>(Unsigned(4, field));
        float f;
        std::memcpy(&f, &bits, 4);
        v.data = static_cast<double>(f);
        break;
      }
      case GGUFValueType::kFloat64: {
        uint64_t bits = Unsigned(8, field);
        double f;
        std::memcpy(&f, &bits, 8);
        v.data = f;
        break;
      }
      case GGUFValueType::kBool: {
        uint64_t b = Unsigned(1, field);
        if (b > 1) Fail(field + " is a BOOL of byte value " + std::to_string(b) + "; allowed: 0 or 1");
        v.data = b == 1;
        break;
      }
      case GGUFValueType::kString: v.data = String(field); break;
      case GGUFValueType::kArray: v = Array(field, depth); break;
    }
    return v;
  }

  void Align(uint64_t alignment, const std::string& field) {
    uint64_t padded = (pos_ + alignment - 1) / alignment * alignment;  // alignment <= 2^31: no overflow
    if (padded > file_.size())
      Fail(field + " starts at offset " + std::to_string(padded) + " (aligned to " + std::to_string(alignment) +
           "), past the end of the " + std::to_string(file_.size()) + "-byte file");
    pos_ = padded;
  }

 private:
  void Need(uint64_t bytes, const std::string& field) const {
    if (bytes > left())
      Fail("the file ends inside " + field + ": it needs " + std::to_string(bytes) + " bytes at offset " +
           std::to_string(pos_) + " but the file has " + std::to_string(file_.size()));
  }

  GGUFValue Array(const std::string& field, int depth) {
    if (depth >= kMaxArrayDepth) Fail(field + " nests arrays more than " + std::to_string(kMaxArrayDepth) + " deep");
    uint32_t element_type = U32(field + " (its element type)");
    uint64_t count = U64(field + " (its element count)");
    if (element_type > static_cast<uint32_t>(GGUFValueType::kFloat64))
      Fail(field + " is an array of value type " + std::to_string(element_type) + "; allowed: 0-12");
    auto element = static_cast<GGUFValueType>(element_type);
    if (count > left() / MinEncodedBytes(element))
      Fail(field + " declares " + std::to_string(count) + " " + gguf_value_type_name(element) + " elements of at least " +
           std::to_string(MinEncodedBytes(element)) + " bytes each, but " + std::to_string(left()) +
           " bytes are left in the file");
    CheckLoadBudget(Where(), field + " (an array of " + std::to_string(count) + " elements)", count * sizeof(GGUFValue));
    std::vector<GGUFValue> items;
    items.reserve(count);
    std::string element_field = field + "[";
    for (uint64_t i = 0; i < count; ++i) {
      element_field.resize(field.size() + 1);
      element_field += std::to_string(i) + "]";
      items.push_back(Value(element_type, element_field, depth + 1));
    }
    GGUFValue v;
    v.type = GGUFValueType::kArray;
    v.element_type = element;
    v.data = std::move(items);
    return v;
  }

  const std::string& path_;
  const MappedFile& file_;
  uint64_t budget_;  // LoadBudgetBytes() once per file
  uint64_t pos_ = 0;
};

uint64_t Alignment(const HeaderReader& r, const std::map<std::string, GGUFValue>& metadata) {
  auto it = metadata.find("general.alignment");
  if (it == metadata.end()) return 32;
  const GGUFValue& v = it->second;
  if (v.type != GGUFValueType::kUint32)
    r.Fail(std::string("general.alignment is a ") + gguf_value_type_name(v.type) + "; it must be a UINT32");
  uint64_t a = std::get<uint64_t>(v.data);
  if (a == 0 || (a & (a - 1)) != 0 || a > (uint64_t{1} << 31))
    r.Fail("general.alignment is " + std::to_string(a) + "; it must be a power of two");
  return a;
}

GGUFTensorInfo ReadTensorInfo(HeaderReader& r, uint64_t index) {
  std::string field = "tensor " + std::to_string(index);
  GGUFTensorInfo info;
  info.name = r.String(field + " (its name)");
  field = "tensor \"" + info.name + "\"";
  uint32_t n_dims = r.U32(field + " (its dimension count)");
  if (n_dims > kMaxDims) r.Fail(field + " has " + std::to_string(n_dims) + " dimensions; at most " + std::to_string(kMaxDims));
  std::vector<uint64_t> dims;
  uint64_t extent = 1;  // zeros skipped, so (0, 2^62, 2^62) cannot overflow index math later
  for (uint32_t i = 0; i < n_dims; ++i) {
    uint64_t n = r.U64(field + " (dimension " + std::to_string(i) + ")");
    if (__builtin_mul_overflow(extent, std::max<uint64_t>(n, 1), &extent) || extent > static_cast<uint64_t>(INT32_MAX))
      r.Fail(field + " has dimension " + std::to_string(i) + " of " + std::to_string(n) + ", which takes it past " +
             std::to_string(INT32_MAX) + " elements");
    dims.push_back(n);
  }
  uint32_t type = r.U32(field + " (its type)");
  std::optional<GGMLLayout> layout = ggml_layout(type);
  if (!layout)
    r.Fail(field + " has type " + ggml_type_name(type) + " (" + std::to_string(type) + "); supported: " + ggml_supported_types());
  info.type = static_cast<GGMLType>(type);
  info.offset = r.U64(field + " (its data offset)");
  for (auto d = dims.rbegin(); d != dims.rend(); ++d) info.shape.push_back(static_cast<int64_t>(*d));
  uint64_t numel = 1;
  for (uint64_t d : dims) numel *= d;  // bounded by extent
  uint64_t innermost = dims.empty() ? 1 : dims[0];
  if (innermost % static_cast<uint64_t>(layout->block_elements) != 0)
    r.Fail(field + " of type " + ggml_type_name(type) + " has an innermost dimension (ne[0]) of " + std::to_string(innermost) +
           ", not a multiple of its blocks of " + std::to_string(layout->block_elements) + " elements");
  info.nbytes = numel / static_cast<uint64_t>(layout->block_elements) * static_cast<uint64_t>(layout->block_bytes);
  return info;
}

// Tensor ranges against the data section, overlaps and the load budget; offsets become file offsets.
void PlaceTensors(const HeaderReader& r, GGUFHeader& header, uint64_t file_size) {
  uint64_t data_size = file_size - header.data_start;
  for (GGUFTensorInfo& t : header.tensors) {
    std::string field = "tensor \"" + t.name + "\"";
    if (t.offset % header.alignment != 0)
      r.Fail(field + " has data offset " + std::to_string(t.offset) + ", not a multiple of the alignment " +
             std::to_string(header.alignment));
    if (t.offset > data_size || t.nbytes > data_size - t.offset)
      r.Fail(field + " needs " + std::to_string(t.nbytes) + " bytes at data offset " + std::to_string(t.offset) +
             ", past the end of the " + std::to_string(data_size) + "-byte data section");
    CheckLoadBudget(r.Where(), field + " (its data)", t.nbytes);
  }
  std::vector<const GGUFTensorInfo*> by_offset;
  for (const GGUFTensorInfo& t : header.tensors)
    if (t.nbytes > 0) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->nbytes)
      r.Fail("tensors \"" + by_offset[i - 1]->name + "\" (" + std::to_string(by_offset[i - 1]->nbytes) + " bytes at data offset " +
             std::to_string(by_offset[i - 1]->offset) + ") and \"" + by_offset[i]->name + "\" (at " +
             std::to_string(by_offset[i]->offset) + ") overlap");
  uint64_t total = 0;
  for (GGUFTensorInfo& t : header.tensors) {
    total += t.nbytes;  // each fits the data section and none overlap: no overflow
    t.offset += header.data_start;
  }
  CheckLoadBudget(r.Where(), "the data of all tensors", total);
}

GGUFHeader ParseHeader(const std::string& path, const MappedFile& file) {
  HeaderReader r(path, file);
  if (file.size() < 4) r.Fail("it has " + std::to_string(file.size()) + " bytes, fewer than the 4-byte magic");
  if (std::memcmp(file.data(), "GGUF", 4) != 0) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%02x %02x %02x %02x", file.data()[0], file.data()[1], file.data()[2], file.data()[3]);
    r.Fail(std::string("the magic is ") + hex + ", not \"GGUF\" (47 47 55 46)");
  }
  r.Unsigned(4, "the magic");
  GGUFHeader header;
  header.version = r.U32("the version");
  if (header.version != 2 && header.version != 3)
    r.Fail("the version is " + std::to_string(header.version) + "; supported: 2 and 3 (little-endian)");
  uint64_t n_tensors = r.U64("the tensor count"), n_kv = r.U64("the metadata count");
  // Each key/value takes at least 13 bytes (key length, value type, a 1-byte value), each tensor entry 24.
  if (n_kv > r.left() / 13)
    r.Fail("the metadata count " + std::to_string(n_kv) + " needs at least 13 bytes each but " + std::to_string(r.left()) +
           " bytes are left in the file");
  if (n_tensors > r.left() / 24)
    r.Fail("the tensor count " + std::to_string(n_tensors) + " needs at least 24 bytes each but " + std::to_string(r.left()) +
           " bytes are left in the file");
  CheckLoadBudget(r.Where(), "the metadata count (" + std::to_string(n_kv) + " entries)", n_kv * sizeof(GGUFValue));
  CheckLoadBudget(r.Where(), "the tensor count (" + std::to_string(n_tensors) + " entries)", n_tensors * sizeof(GGUFTensorInfo));
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = r.String("metadata key " + std::to_string(i));
    uint32_t type = r.U32("the value type of metadata key \"" + key + "\"");
    GGUFValue value = r.Value(type, "metadata key \"" + key + "\"", 0);
    if (!header.metadata.emplace(key, std::move(value)).second) r.Fail("metadata key \"" + key + "\" appears twice");
  }
  header.alignment = Alignment(r, header.metadata);
  std::map<std::string, bool> names;
  for (uint64_t i = 0; i < n_tensors; ++i) {
    header.tensors.push_back(ReadTensorInfo(r, i));
    if (!names.emplace(header.tensors.back().name, true).second)
      r.Fail("tensor \"" + header.tensors.back().name + "\" appears twice");
  }
  if (n_tensors > 0) r.Align(header.alignment, "the tensor data");
  header.data_start = r.pos();
  PlaceTensors(r, header, file.size());
  return header;
}

std::string TypeMismatch(const GGUFValue& v, const char* wanted) {
  return std::string("GGUF metadata value: a ") + gguf_value_type_name(v.type) + " is not " + wanted;
}

}  // namespace

const char* gguf_value_type_name(GGUFValueType type) {
  constexpr const char* kNames[] = {"UINT8", "INT8",   "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
                                    "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64", "FLOAT64"};
  auto i = static_cast<uint32_t>(type);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

int64_t GGUFValue::as_int() const {
  if (auto* u = std::get_if<uint64_t>(&data)) {
    if (*u > static_cast<uint64_t>(INT64_MAX)) throw Error("GGUF metadata value: " + std::to_string(*u) + " does not fit int64");
    return static_cast<int64_t>(*u);
  }
  if (auto* i = std::get_if<int64_t>(&data)) return *i;
  throw Error(TypeMismatch(*this, "an integer"));
}

double GGUFValue::as_float() const {
  if (auto* f = std::get_if<double>(&data)) return *f;
  if (auto* u = std::get_if<uint64_t>(&data)) return static_cast<double>(*u);
  if (auto* i = std::get_if<int64_t>(&data)) return static_cast<double>(*i);
  throw Error(TypeMismatch(*this, "a number"));
}

bool GGUFValue::as_bool() const {
  if (auto* b = std::get_if<bool>(&data)) return *b;
  throw Error(TypeMismatch(*this, "a BOOL"));
}

const std::string& GGUFValue::as_string() const {
  if (auto* s = std::get_if<std::string>(&data)) return *s;
  throw Error(TypeMismatch(*this, "a STRING"));
}

const std::vector<GGUFValue>& GGUFValue::as_array() const {
  if (auto* a = std::get_if<std::vector<GGUFValue>>(&data)) return *a;
  throw Error(TypeMismatch(*this, "an ARRAY"));
}

std::vector<std::string> GGUFValue::as_strings() const {
  const std::vector<GGUFValue>& items = as_array();
  if (element_type != GGUFValueType::kString)
    throw Error(std::string("GGUF metadata value: an ARRAY of ") + gguf_value_type_name(element_type) +
                " is not an ARRAY of STRING");
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const GGUFValue& v : items) out.push_back(v.as_string());
  return out;
}

const GGUFValue& GGUFHeader::at(const std::string& key) const {
  auto it = metadata.find(key);
  if (it == metadata.end()) throw Error("GGUF metadata has no key \"" + key + "\"");
  return it->second;
}

GGUFHeader gguf_read(const std::string& path) { return ParseHeader(path, *MappedFile::Open(path, "gguf_load")); }

namespace {

// The tensors of one file into |out| (names must be new to it).
void LoadTensors(const std::string& path, const std::shared_ptr<MappedFile>& file, const GGUFHeader& header,
                 std::string_view device, GGUFFile& out) {
  for (const GGUFTensorInfo& t : header.tensors) {
    if (out.tensors.count(t.name))
      throw Error("gguf_load: " + path + ": tensor \"" + t.name + "\" is also in an earlier part of the split model");
    const unsigned char* src = file->data() + t.offset;
    // The callback holds the mapping: it stays valid until the tensor is read or dropped.
    auto fill = [file, src, n = t.nbytes](void* dst, size_t bytes) { std::memcpy(dst, src, std::min<size_t>(n, bytes)); };
    GGMLLayout layout = *ggml_layout(static_cast<uint32_t>(t.type));
    if (std::optional<DType> dtype = NativeDType(t.type)) {
      out.tensors.emplace(t.name, Tensor::from_loader(t.shape, *dtype, std::move(fill), device));
      continue;
    }
    int64_t n_blocks = static_cast<int64_t>(t.nbytes) / layout.block_bytes;
    Tensor blocks = Tensor::from_loader({n_blocks, layout.block_bytes / 2}, dtypes::uint16, std::move(fill), device);
    out.blocks.emplace(t.name, blocks);
    out.tensors.emplace(t.name, ggml_dequantize(blocks, t.type, t.shape));
  }
}

// The paths of a split model's parts (llama.cpp's gguf-split names: PREFIX-00001-of-00003.gguf ...), given
// the first part's path and header; just |path| when the model is one file.
std::vector<std::string> SplitPaths(const std::string& path, const GGUFHeader& header) {
  auto count = header.metadata.find("split.count");
  if (count == header.metadata.end() || count->second.as_int() <= 1) return {path};
  int64_t n = count->second.as_int();
  auto no = header.metadata.find("split.no");
  if (no != header.metadata.end() && no->second.as_int() != 0)
    throw Error("gguf_load: " + path + " is part " + std::to_string(no->second.as_int() + 1) + " of a split model; load part 1");
  char suffix[64];  // room for any two int64 counts: no truncation, no -Wformat-truncation
  std::snprintf(suffix, sizeof suffix, "-00001-of-%05lld.gguf", static_cast<long long>(n));
  if (n > 99999 || path.size() < std::strlen(suffix) || path.compare(path.size() - std::strlen(suffix), std::string::npos, suffix) != 0)
    throw Error("gguf_load: " + path + " declares split.count " + std::to_string(n) + "; its path must end in " + suffix);
  std::string prefix = path.substr(0, path.size() - std::strlen(suffix));
  std::vector<std::string> paths;
  for (int64_t i = 1; i <= n; ++i) {
    std::snprintf(suffix, sizeof suffix, "-%05lld-of-%05lld.gguf", static_cast<long long>(i), static_cast<long long>(n));
    paths.push_back(prefix + suffix);
  }
  return paths;
}

}  // namespace

GGUFFile gguf_load(const std::string& path, std::string_view device) {
  std::shared_ptr<MappedFile> file = MappedFile::Open(path, "gguf_load");
  GGUFFile out{ParseHeader(path, *file), {}, {}};
  LoadTensors(path, file, out.header, device, out);
  std::vector<std::string> parts = SplitPaths(path, out.header);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::shared_ptr<MappedFile> part = MappedFile::Open(parts[i], "gguf_load");
    GGUFHeader header = ParseHeader(parts[i], *part);
    LoadTensors(parts[i], part, header, device, out);
    out.header.tensors.insert(out.header.tensors.end(), header.tensors.begin(), header.tensors.end());
  }
  return out;
}

}  // namespace tg::nn
