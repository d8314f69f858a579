// TensorProto -> tg::Tensor. Every size is checked against the dims before a byte is copied: a damaged
// file must end in a tg::Error, never in a read past the end of a buffer.
#include "frontend/onnx/onnx_tensor.h"

#include "frontend/onnx/onnx.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "frontend/load_budget.h"
#include "onnx/onnx_pb.h"

namespace tg::onnx {
namespace {

using ::onnx::TensorProto;

std::string Where(const TensorProto& p) { return "tensor \"" + p.name() + "\""; }

// Product of |dims|, refusing negative dims and products past what any buffer could hold.
int64_t CheckedNumel(const Shape& dims, const TensorProto& p) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) throw Error(Where(p) + ": negative dim " + std::to_string(d) + " in " + ShapeString(dims));
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / 8 / d)
      throw Error(Where(p) + ": shape " + ShapeString(dims) + " is too large");
    n *= d;
  }
  return n;
}

template <class T>
Tensor Typed(const void* bytes, int64_t n, const Shape& shape, std::string_view device) {
  std::vector<T> v(static_cast<size_t>(n));
  if (n > 0) std::memcpy(v.data(), bytes, static_cast<size_t>(n) * sizeof(T));
  return Tensor::from_vector<T>(v, shape, device);
}

// |n| elements of |dtype| laid out little-endian at |bytes|.
Tensor FromBytes(const void* bytes, int64_t n, DType dtype, const Shape& shape, std::string_view device) {
  switch (dtype.scalar()) {
    case ScalarType::kBool: {
      std::vector<bool> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<const uint8_t*>(bytes)[i] != 0;
      return Tensor::from_vector<bool>(v, shape, device);
    }
    case ScalarType::kInt8: return Typed<int8_t>(bytes, n, shape, device);
    case ScalarType::kInt16: return Typed<int16_t>(bytes, n, shape, device);
    case ScalarType::kInt32: return Typed<int32_t>(bytes, n, shape, device);
    case ScalarType::kInt64: return Typed<int64_t>(bytes, n, shape, device);
    case ScalarType::kUInt8: return Typed<uint8_t>(bytes, n, shape, device);
    case ScalarType::kUInt16: return Typed<uint16_t>(bytes, n, shape, device);
    case ScalarType::kUInt32: return Typed<uint32_t>(bytes, n, shape, device);
    case ScalarType::kUInt64: return Typed<uint64_t>(bytes, n, shape, device);
    case ScalarType::kFloat32: return Typed<float>(bytes, n, shape, device);
    case ScalarType::kFloat64: return Typed<double>(bytes, n, shape, device);
    case ScalarType::kFloat16:
    case ScalarType::kBFloat16:  // no C++ type holds them: move the bits as uint16 and reinterpret
      return Typed<uint16_t>(bytes, n, shape, device).bitcast(dtype);
    default: throw Error("onnx: cannot hold dtype " + dtype.name());
  }
}

// Typed fields store narrow types widened (int32_data holds int8..uint16, bool and the fp16 bits).
template <class Field>
std::vector<uint8_t> Narrow(const Field& field, DType dtype, int64_t n, const TensorProto& p) {
  if (static_cast<int64_t>(field.size()) != n)
    throw Error(Where(p) + ": holds " + std::to_string(field.size()) + " values, its dims need " + std::to_string(n));
  size_t size = dtype.itemsize();
  std::vector<uint8_t> out(static_cast<size_t>(n) * size);
  for (int64_t i = 0; i < n; ++i) {
    auto v = field.Get(static_cast<int>(i));
    if constexpr (std::is_floating_point_v<decltype(v)>) {
      if (dtype == dtypes::float32) { float f = static_cast<float>(v); std::memcpy(&out[i * size], &f, size); }
      else { double d = static_cast<double>(v); std::memcpy(&out[i * size], &d, size); }
    } else {
      uint64_t bits = static_cast<uint64_t>(v);  // little-endian: the low |size| bytes are the value
      std::memcpy(&out[i * size], &bits, size);
    }
  }
  return out;
}

// The |expected| bytes of |p|'s external data; its declared range is checked against them and against the
// file's size before anything is read.
std::string ReadExternal(const TensorProto& p, const std::string& base_dir, int64_t expected) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      throw Error(Where(p) + ": external_data " + kv.key() + " = \"" + kv.value() + "\" is not a number");
    }
  }
  if (location.empty()) throw Error(Where(p) + ": data_location is EXTERNAL but no \"location\" is given");
  if (base_dir.empty())
    throw Error(Where(p) + ": its data is in external file \"" + location +
                "\"; load the model from a path (tg::onnx::load) so the file can be found beside it");
  if (location[0] == '/' || location.find("..") != std::string::npos)
    throw Error(Where(p) + ": external location \"" + location + "\" must be a relative path below the model's directory");
  std::string path = base_dir + "/" + location;
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw Error(Where(p) + ": cannot open external data file " + path);
  int64_t size = f.tellg();
  if (offset < 0 || offset > size || (length >= 0 && offset + length > size))
    throw Error(Where(p) + ": external data range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                ") is outside " + path + " (" + std::to_string(size) + " bytes)");
  if (length < 0) length = size - offset;
  if (length != expected)
    throw Error(Where(p) + ": external data length is " + std::to_string(length) + " bytes, its dims need " +
                std::to_string(expected));
  std::string data(static_cast<size_t>(length), '\0');
  f.seekg(offset);
  f.read(data.data(), length);
  return data;
}

void StoreHostInts(const void* bytes, int64_t n, DType dtype, std::vector<int64_t>* out) {
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* b = static_cast<const uint8_t*>(bytes) + i * dtype.itemsize();
    int64_t v = 0;
    switch (dtype.scalar()) {
      case ScalarType::kInt8: v = *reinterpret_cast<const int8_t*>(b); break;
      case ScalarType::kInt16: { int16_t x; std::memcpy(&x, b, 2); v = x; break; }
      case ScalarType::kInt32: { int32_t x; std::memcpy(&x, b, 4); v = x; break; }
      case ScalarType::kUInt16: { uint16_t x; std::memcpy(&x, b, 2); v = x; break; }
      case ScalarType::kUInt32: { uint32_t x; std::memcpy(&x, b, 4); v = x; break; }
      case ScalarType::kUInt8: case ScalarType::kBool: v = *b; break;
      default: std::memcpy(&v, b, 8); break;  // int64, uint64
    }
    (*out)[i] = v;
  }
}

void StoreHostFloats(const void* bytes, int64_t n, DType dtype, std::vector<double>* out) {
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* b = static_cast<const uint8_t*>(bytes) + i * dtype.itemsize();
    if (dtype == dtypes::float32) {
      float x;
      std::memcpy(&x, b, 4);
      (*out)[i] = x;
    } else {
      std::memcpy(&(*out)[i], b, 8);
    }
  }
}

void StoreHostValues(const void* bytes, int64_t n, DType dtype, HostValues* host) {
  if ((dtype.is_int() || dtype.is_bool()) && n <= kHostInts) {
    StoreHostInts(bytes, n, dtype, &host->ints);
  } else if ((dtype == dtypes::float32 || dtype == dtypes::float64) && n <= kHostFloats) {
    host->is_float = true;
    StoreHostFloats(bytes, n, dtype, &host->floats);
  }
}

}  // namespace

std::string OnnxTypeName(int64_t code) {
  if (code >= 0 && code <= std::numeric_limits<int>::max() && TensorProto::DataType_IsValid(static_cast<int>(code)))
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(code));
  return "data type " + std::to_string(code);
}

DType DTypeFromOnnx(int64_t code) {
  switch (code) {
    case TensorProto::FLOAT: return dtypes::float32;
    case TensorProto::UINT8: return dtypes::uint8;
    case TensorProto::INT8: return dtypes::int8;
    case TensorProto::UINT16: return dtypes::uint16;
    case TensorProto::INT16: return dtypes::int16;
    case TensorProto::INT32: return dtypes::int32;
    case TensorProto::INT64: return dtypes::int64;
    case TensorProto::BOOL: return dtypes::bool_;
    case TensorProto::FLOAT16: return dtypes::float16;
    case TensorProto::DOUBLE: return dtypes::float64;
    case TensorProto::UINT32: return dtypes::uint32;
    case TensorProto::UINT64: return dtypes::uint64;
    case TensorProto::BFLOAT16: return dtypes::bfloat16;
    default:
      throw Error("onnx: element type " + OnnxTypeName(code) +
                  " is not supported; tinygrad-cc holds bool, (u)int8..64, float16, bfloat16, float32 and float64");
  }
}

Tensor TensorFromProto(const TensorProto& p, const std::string& base_dir, std::string_view device,
                       HostValues* host) {
  if (p.has_segment()) throw Error(Where(p) + ": segmented tensors are not supported");
  DType dtype = DTypeFromOnnx(p.data_type());
  Shape shape(p.dims().begin(), p.dims().end());
  int64_t n = CheckedNumel(shape, p);
  CheckLoadBudget(Where(p), dtype.name() + " dims " + ShapeString(shape), static_cast<uint64_t>(n) * dtype.itemsize());
  std::string external;
  const std::string* raw = nullptr;
  std::vector<uint8_t> narrowed;
  if (p.data_location() == TensorProto::EXTERNAL) {
    external = ReadExternal(p, base_dir, n * dtype.itemsize());
    raw = &external;
  } else if (p.has_raw_data()) {
    raw = &p.raw_data();
  } else if (dtype == dtypes::float32) {
    narrowed = Narrow(p.float_data(), dtype, n, p);
  } else if (dtype == dtypes::float64) {
    narrowed = Narrow(p.double_data(), dtype, n, p);
  } else if (dtype == dtypes::int64) {
    narrowed = Narrow(p.int64_data(), dtype, n, p);
  } else if (dtype == dtypes::uint32 || dtype == dtypes::uint64) {
    narrowed = Narrow(p.uint64_data(), dtype, n, p);
  } else {
    narrowed = Narrow(p.int32_data(), dtype, n, p);
  }
  const void* bytes = narrowed.data();
  if (raw != nullptr) {
    if (static_cast<int64_t>(raw->size()) != n * dtype.itemsize())
      throw Error(Where(p) + ": has " + std::to_string(raw->size()) + " bytes of data, its " + dtype.name() +
                  " dims " + ShapeString(shape) + " need " + std::to_string(n * dtype.itemsize()));
    bytes = raw->data();
  }
  if (host != nullptr) StoreHostValues(bytes, n, dtype, host);
  return FromBytes(bytes, n, dtype, shape, device);
}

namespace {
template <class T>
std::vector<double> Widen(const Tensor& t) {
  std::vector<T> v = t.to_vector<T>();
  return std::vector<double>(v.begin(), v.end());
}

double HalfToDouble(uint16_t h, bool bf16) {
  if (bf16) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}
}  // namespace

std::vector<double> values_as_double(const Tensor& t) {
  switch (t.dtype().scalar()) {
    case ScalarType::kBool: return Widen<bool>(t);
    case ScalarType::kInt8: return Widen<int8_t>(t);
    case ScalarType::kInt16: return Widen<int16_t>(t);
    case ScalarType::kInt32: return Widen<int32_t>(t);
    case ScalarType::kInt64: return Widen<int64_t>(t);
    case ScalarType::kUInt8: return Widen<uint8_t>(t);
    case ScalarType::kUInt16: return Widen<uint16_t>(t);
    case ScalarType::kUInt32: return Widen<uint32_t>(t);
    case ScalarType::kUInt64: return Widen<uint64_t>(t);
    case ScalarType::kFloat32: return Widen<float>(t);
    case ScalarType::kFloat64: return Widen<double>(t);
    case ScalarType::kFloat16:
    case ScalarType::kBFloat16: {
      std::vector<double> out;
      for (uint16_t h : t.bitcast(dtypes::uint16).to_vector<uint16_t>())
        out.push_back(HalfToDouble(h, t.dtype() == dtypes::bfloat16));
      return out;
    }
    default: throw Error("values_as_double: unsupported dtype " + t.dtype().name());
  }
}

}  // namespace tg::onnx
