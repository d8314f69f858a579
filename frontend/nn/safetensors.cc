// tg::nn safetensors IO. Every field of an untrusted header is checked before any byte of data is
// touched, so a malformed file is a tg::Error and never an out-of-bounds read.
#include "frontend/nn/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend/load_budget.h"
#include "frontend/nn/mapped_file.h"

namespace tg::nn {
namespace {

using Json = nlohmann::json;

constexpr std::pair<const char*, DType> kDTypes[] = {
    {"BOOL", dtypes::bool_}, {"U8", dtypes::uint8},     {"I8", dtypes::int8},       {"U16", dtypes::uint16},
    {"I16", dtypes::int16},  {"U32", dtypes::uint32},   {"I32", dtypes::int32},     {"U64", dtypes::uint64},
    {"I64", dtypes::int64},  {"F16", dtypes::float16},  {"BF16", dtypes::bfloat16}, {"F32", dtypes::float32},
    {"F64", dtypes::float64}};
constexpr const char* kAllowedDTypes = "BOOL U8 I8 U16 I16 U32 I32 U64 I64 F16 BF16 F32 F64";
constexpr int kMaxJsonDepth = 16;                   // the format nests 3 deep; deeper is an attack
constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;  // within the data section
};

struct Header {
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;
  uint64_t data_start;
};

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw Error("safe_load: " + path + " is not a valid safetensors file: " + what);
}

std::optional<DType> DTypeFromTag(const std::string& tag) {
  for (auto& [name, dtype] : kDTypes)
    if (tag == name) return dtype;
  return std::nullopt;
}

const char* TagOf(DType dtype) {
  for (auto& [name, d] : kDTypes)
    if (d == dtype) return name;
  throw Error("safe_save: dtype " + dtype.name() + " has no safetensors name");
}

// Parses with a depth limit: nlohmann's parser is iterative, but a hostile header should still cost
// nothing. Returns nullopt for invalid JSON.
std::optional<Json> ParseJson(const unsigned char* begin, const unsigned char* end) {
  struct TooDeep {};
  auto guard = [](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    Json j = Json::parse(begin, end, guard, /*allow_exceptions=*/false);
    if (j.is_discarded()) return std::nullopt;
    return j;
  } catch (const TooDeep&) {
    return std::nullopt;
  }
}

// A non-negative JSON integer, or nullopt.
std::optional<uint64_t> Unsigned(const Json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  return std::nullopt;
}

Entry ParseEntry(const std::string& path, const std::string& name, const Json& j, uint64_t data_size) {
  if (!j.is_object()) Fail(path, "entry \"" + name + "\" is not an object");
  auto dtype_it = j.find("dtype"), shape_it = j.find("shape"), offsets_it = j.find("data_offsets");
  if (dtype_it == j.end() || shape_it == j.end() || offsets_it == j.end())
    Fail(path, "entry \"" + name + "\" needs \"dtype\", \"shape\" and \"data_offsets\"");
  std::optional<DType> dtype = dtype_it->is_string() ? DTypeFromTag(dtype_it->get<std::string>()) : std::nullopt;
  if (!dtype) Fail(path, "entry \"" + name + "\" has dtype " + dtype_it->dump() + "; allowed: " + kAllowedDTypes);
  if (!shape_it->is_array()) Fail(path, "entry \"" + name + "\" has a shape that is not an array");
  Shape shape;
  uint64_t numel = 1, extent = 1;  // extent skips zeros, so (0, 2^62, 2^62) cannot overflow index math later
  for (const Json& d : *shape_it) {
    std::optional<uint64_t> n = Unsigned(d);
    if (!n || __builtin_mul_overflow(numel, *n, &numel) || __builtin_mul_overflow(extent, std::max<uint64_t>(*n, 1), &extent) ||
        extent > static_cast<uint64_t>(INT32_MAX))
      Fail(path, "entry \"" + name + "\" has shape " + shape_it->dump() + "; dimensions must be integers >= 0");
    shape.push_back(static_cast<int64_t>(*n));
  }
  uint64_t nbytes;
  if (__builtin_mul_overflow(numel, static_cast<uint64_t>(dtype->itemsize()), &nbytes) || nbytes > data_size)
    Fail(path, "entry \"" + name + "\" of shape " + shape_it->dump() + " needs more bytes than the file holds");
  if (!offsets_it->is_array() || offsets_it->size() != 2 || !Unsigned((*offsets_it)[0]) || !Unsigned((*offsets_it)[1]))
    Fail(path, "entry \"" + name + "\" needs data_offsets [begin, end] of integers >= 0; got " + offsets_it->dump());
  uint64_t begin = *Unsigned((*offsets_it)[0]), end = *Unsigned((*offsets_it)[1]);
  if (begin > end || end > data_size)
    Fail(path, "entry \"" + name + "\" has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                   "] outside the " + std::to_string(data_size) + " data bytes");
  if (end - begin != nbytes)
    Fail(path, "entry \"" + name + "\" has " + std::to_string(end - begin) + " bytes but its shape and dtype need " +
                   std::to_string(nbytes));
  return Entry{name, *dtype, std::move(shape), begin, end};
}

std::map<std::string, std::string> ParseMetadata(const std::string& path, const Json& j) {
  if (!j.is_object()) Fail(path, "\"__metadata__\" is not an object");
  std::map<std::string, std::string> out;
  for (auto& [k, v] : j.items()) {
    if (!v.is_string()) Fail(path, "\"__metadata__\" value of \"" + k + "\" is not a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

void CheckNoOverlap(const std::string& path, std::vector<Entry> entries) {
  std::erase_if(entries, [](const Entry& e) { return e.begin == e.end; });  // empty ranges overlap nothing
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i].begin < entries[i - 1].end)
      Fail(path, "entries \"" + entries[i - 1].name + "\" and \"" + entries[i].name + "\" overlap");
}

Header ParseHeader(const std::string& path, const MappedFile& file) {
  if (file.size() < 8) Fail(path, "it has " + std::to_string(file.size()) + " bytes, fewer than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file.data()[i];  // little-endian on any host
  CheckLoadBudget("safe_load: " + path, "the header length", n);
  if (n > file.size() - 8 || n > kMaxHeaderBytes)
    Fail(path, "the header length " + std::to_string(n) + " runs past the end of the " + std::to_string(file.size()) +
                   "-byte file");
  std::optional<Json> json = ParseJson(file.data() + 8, file.data() + 8 + n);
  if (!json) Fail(path, "the header is not valid JSON");
  if (!json->is_object()) Fail(path, "the header is not a JSON object");
  Header header{{}, {}, 8 + n};
  uint64_t data_size = file.size() - header.data_start;
  for (auto& [name, value] : json->items()) {
    if (name == "__metadata__") header.metadata = ParseMetadata(path, value);
    else header.entries.push_back(ParseEntry(path, name, value, data_size));
  }
  CheckNoOverlap(path, header.entries);
  // Each tensor gets a device buffer of its size when it is read; the file's bytes alone bound nothing
  // when the file is larger than the memory we may use.
  uint64_t total = 0;
  for (const Entry& e : header.entries) {
    CheckLoadBudget("safe_load: " + path, "entry \"" + e.name + "\" (data_offsets)", e.end - e.begin);
    total += e.end - e.begin;
  }
  CheckLoadBudget("safe_load: " + path, "the data of all entries", total);
  return header;
}

}  // namespace

StateDict safe_load(const std::string& path, std::string_view device) {
  std::shared_ptr<MappedFile> file = MappedFile::Open(path, "safe_load");
  Header header = ParseHeader(path, *file);
  StateDict out;
  for (const Entry& e : header.entries) {
    const unsigned char* src = file->data() + header.data_start + e.begin;
    // The callback holds the mapping: it stays valid until the tensor is read or dropped.
    auto fill = [file, src, n = e.end - e.begin](void* dst, size_t bytes) {
      std::memcpy(dst, src, std::min<size_t>(n, bytes));
    };
    out.emplace(e.name, Tensor::from_loader(e.shape, e.dtype, std::move(fill), device));
  }
  return out;
}

std::map<std::string, std::string> safe_load_metadata(const std::string& path) {
  return ParseHeader(path, *MappedFile::Open(path, "safe_load")).metadata;
}

void safe_save(const StateDict& tensors, const std::string& path, const std::map<std::string, std::string>& metadata) {
  std::vector<Tensor> values;
  for (auto& [name, t] : tensors) values.push_back(t);
  Tensor::realize_all(values);
  Json header = Json::object();
  uint64_t offset = 0;
  for (auto& [name, t] : tensors) {
    if (name == "__metadata__") throw Error("safe_save: \"__metadata__\" is reserved and cannot name a tensor");
    uint64_t nbytes = static_cast<uint64_t>(t.numel()) * t.dtype().itemsize();
    header[name] = {{"dtype", TagOf(t.dtype())}, {"shape", t.shape()}, {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // aligns the data to 8 bytes, as the reference writer does
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("safe_save: cannot open " + path + " for writing: " + std::strerror(errno));
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(static_cast<uint64_t>(text.size()) >> (8 * i));
  out.write(reinterpret_cast<const char*>(len), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (auto& [name, t] : tensors) {
    std::vector<unsigned char> bytes = t.to_bytes();
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  if (!out.flush()) throw Error("safe_save: writing " + path + " failed: " + std::strerror(errno));
}

}  // namespace tg::nn
