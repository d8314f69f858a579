// DType: a scalar type times a vector width, plus tinygrad's promotion lattice and constant conversion.
// The bottom of the IR (docs/architecture.md): every UOp of every stage of the compiler carries one.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>

namespace tg {

enum class ScalarType : uint8_t { kVoid, kBool, kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16, kUInt32,
                                  kUInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

class DType {
 public:
  constexpr DType() = default;
  constexpr DType(ScalarType s, uint8_t count = 1) : scalar_(s), count_(count) {}  // NOLINT: implicit on purpose
  constexpr ScalarType scalar() const { return scalar_; }
  constexpr int count() const { return count_; }
  constexpr DType vec(int n) const { return DType(scalar_, static_cast<uint8_t>(n)); }
  constexpr DType base() const { return DType(scalar_, 1); }
  int itemsize() const;  // bytes of the whole vector
  bool is_float() const;
  bool is_int() const;  // signed or unsigned, not bool
  bool is_unsigned() const;
  bool is_bool() const { return scalar_ == ScalarType::kBool; }
  bool is_void() const { return scalar_ == ScalarType::kVoid; }
  std::string name() const;  // "float32", "int64", "bool", "float32x4"

  friend bool operator==(DType, DType) = default;
  template <class H>
  friend H AbslHashValue(H h, DType d) {
    return H::combine(std::move(h), static_cast<uint8_t>(d.scalar_), d.count_);
  }

 private:
  ScalarType scalar_ = ScalarType::kVoid;
  uint8_t count_ = 1;
};

std::ostream& operator<<(std::ostream& os, DType d);  // name(); makes gtest failures readable

namespace dtypes {
inline constexpr DType void_{ScalarType::kVoid};
inline constexpr DType bool_{ScalarType::kBool};
inline constexpr DType int8{ScalarType::kInt8};
inline constexpr DType int16{ScalarType::kInt16};
inline constexpr DType int32{ScalarType::kInt32};
inline constexpr DType int64{ScalarType::kInt64};
inline constexpr DType uint8{ScalarType::kUInt8};
inline constexpr DType uint16{ScalarType::kUInt16};
inline constexpr DType uint32{ScalarType::kUInt32};
inline constexpr DType uint64{ScalarType::kUInt64};
inline constexpr DType float16{ScalarType::kFloat16};
inline constexpr DType bfloat16{ScalarType::kBFloat16};
inline constexpr DType float32{ScalarType::kFloat32};
inline constexpr DType float64{ScalarType::kFloat64};
inline constexpr DType default_float = float32;
inline constexpr DType default_int = int32;
inline constexpr DType index = int32;  // dtype of index math in kernels
}  // namespace dtypes

// tinygrad's least_upper_dtype over its promo_lattice (without the weak and fp8 types). The vector width of
// the result is the larger of the two.
DType PromoteTypes(DType a, DType b);
// Python-side names and C names: "float32", "float", "half", "double", "int", "long", "uchar", "bool", ...
std::optional<DType> DTypeFromName(std::string_view name);

// Numeric limits of the scalar type. Int versions are exact for ints and bool (uint64 max saturates to
// INT64_MAX); for floats they return the full int64 range, which range analysis reads as "unknown".
int64_t DTypeMinInt(DType);
int64_t DTypeMaxInt(DType);
double DTypeMinDouble(DType);  // -inf for floats
double DTypeMaxDouble(DType);  // +inf for floats

// The value of a CONST. Floats are double, ints (uint64 as its bit pattern) int64_t, bool bool.
using ConstValue = std::variant<int64_t, double, bool>;
// C conversion of |v| to |to|'s kind: ints wrap to the type's width, floats truncate toward zero into ints,
// float32/float16/bfloat16 round to their precision, anything nonzero is true.
ConstValue CastConst(ConstValue v, DType to);
double ConstToDouble(ConstValue v);
int64_t ConstToInt(ConstValue v);  // doubles truncate toward zero
std::string ConstToString(ConstValue v);

}  // namespace tg
