#include "ir/dtype.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tg {
namespace {

using S = ScalarType;

struct ScalarInfo {
  std::string_view name;
  int bytes;
  int bits;       // value bits for ints (wrap width)
  int priority;   // tinygrad's DType.priority: the tie-break of least_upper_dtype
};
constexpr std::array<ScalarInfo, 14> kInfo = {{
    {"void", 0, 0, -1},    {"bool", 1, 1, 0},     {"int8", 1, 8, 1},     {"int16", 2, 16, 3},
    {"int32", 4, 32, 5},   {"int64", 8, 64, 7},   {"uint8", 1, 8, 2},    {"uint16", 2, 16, 4},
    {"uint32", 4, 32, 6},  {"uint64", 8, 64, 8},  {"float16", 2, 16, 12}, {"bfloat16", 2, 16, 13},
    {"float32", 4, 32, 14}, {"float64", 8, 64, 15},
}};
const ScalarInfo& Info(ScalarType s) { return kInfo[static_cast<int>(s)]; }

// tinygrad's promo_lattice with the weak and fp8 types contracted out: each type's direct parents.
std::vector<S> Parents(S s) {
  switch (s) {
    case S::kBool: return {S::kInt8, S::kUInt8};
    case S::kInt8: return {S::kInt16};
    case S::kInt16: return {S::kInt32};
    case S::kInt32: return {S::kInt64};
    case S::kInt64: return {S::kFloat16, S::kBFloat16};
    case S::kUInt8: return {S::kInt16, S::kUInt16};
    case S::kUInt16: return {S::kInt32, S::kUInt32};
    case S::kUInt32: return {S::kInt64, S::kUInt64};
    case S::kUInt64: return {S::kFloat16, S::kBFloat16};
    case S::kFloat16: return {S::kFloat32};
    case S::kBFloat16: return {S::kFloat32};
    case S::kFloat32: return {S::kFloat64};
    default: return {};
  }
}

// Bit i set: scalar type i is |s| or above it in the lattice.
uint32_t Ancestors(S s) {
  uint32_t set = 1u << static_cast<int>(s);
  for (S parent : Parents(s)) set |= Ancestors(parent);
  return set;
}

// Rounds to the nearest float16 value (round-to-nearest-even through float's mantissa).
double RoundFloat16(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  int exp = 0;
  std::frexp(v, &exp);                       // v = m * 2^exp, 0.5 <= |m| < 1
  int mantissa_bits = exp - 1 < -14 ? 10 - (-14 - (exp - 1)) : 10;  // subnormals lose bits
  if (mantissa_bits < 0) return std::copysign(0.0, v);
  double scale = std::ldexp(1.0, mantissa_bits - (exp - 1));
  double r = std::nearbyint(v * scale) / scale;
  return std::fabs(r) > 65504.0 ? std::copysign(INFINITY, v) : r;
}

double RoundBFloat16(double v) {
  float f = static_cast<float>(v);
  if (!std::isfinite(f)) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even on the dropped 16 bits
  bits &= 0xffff0000u;
  return std::bit_cast<float>(bits);
}

int64_t WrapInt(int64_t v, DType to) {
  int bits = Info(to.scalar()).bits;
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (!to.is_unsigned() && (u >> (bits - 1)) != 0) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

int64_t DoubleToInt(double v, DType to) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (to.scalar() == S::kUInt64 && t >= 9223372036854775808.0) {
    return t >= 18446744073709551616.0 ? -1 : static_cast<int64_t>(static_cast<uint64_t>(t));
  }
  if (t >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (t <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(t);
}

}  // namespace

int DType::itemsize() const { return Info(scalar_).bytes * count_; }
bool DType::is_float() const { return scalar_ >= S::kFloat16; }
bool DType::is_int() const { return scalar_ >= S::kInt8 && scalar_ <= S::kUInt64; }
bool DType::is_unsigned() const { return scalar_ >= S::kUInt8 && scalar_ <= S::kUInt64; }

std::string DType::name() const {
  std::string base(Info(scalar_).name);
  return count_ == 1 ? base : absl::StrCat(base, "x", count_);
}

std::ostream& operator<<(std::ostream& os, DType d) { return os << d.name(); }

DType PromoteTypes(DType a, DType b) {
  if (a.scalar() == b.scalar()) return a.vec(std::max(a.count(), b.count()));
  uint32_t common = Ancestors(a.scalar()) & Ancestors(b.scalar());
  S best = S::kFloat64;
  for (int i = 0; i < static_cast<int>(kInfo.size()); ++i) {
    if ((common >> i & 1) && Info(static_cast<S>(i)).priority < Info(best).priority) best = static_cast<S>(i);
  }
  return DType(best, static_cast<uint8_t>(std::max(a.count(), b.count())));
}

std::optional<DType> DTypeFromName(std::string_view name) {
  static const std::pair<std::string_view, DType> kAliases[] = {
      {"half", dtypes::float16}, {"float", dtypes::float32}, {"double", dtypes::float64},
      {"char", dtypes::int8}, {"short", dtypes::int16}, {"int", dtypes::int32}, {"long", dtypes::int64},
      {"uchar", dtypes::uint8}, {"ushort", dtypes::uint16}, {"uint", dtypes::uint32},
      {"ulong", dtypes::uint64}, {"void", dtypes::void_}, {"bf16", dtypes::bfloat16},
  };
  for (const auto& [alias, dtype] : kAliases) {
    if (alias == name) return dtype;
  }
  for (int i = 0; i < static_cast<int>(kInfo.size()); ++i) {
    if (kInfo[i].name == name) return DType(static_cast<S>(i));
  }
  return std::nullopt;
}

int64_t DTypeMinInt(DType d) {
  if (d.is_bool() || d.is_unsigned()) return 0;
  if (!d.is_int()) return std::numeric_limits<int64_t>::min();
  int bits = Info(d.scalar()).bits;
  // -(1 << 63) overflows (UBSan): int64's minimum has no positive counterpart.
  return bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
}

int64_t DTypeMaxInt(DType d) {
  if (d.is_bool()) return 1;
  if (!d.is_int()) return std::numeric_limits<int64_t>::max();
  int bits = Info(d.scalar()).bits - (d.is_unsigned() ? 0 : 1);
  return bits >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << bits) - 1;
}

double DTypeMinDouble(DType d) {
  if (d.is_float()) return -INFINITY;
  if (d.scalar() == S::kUInt64) return 0;
  return static_cast<double>(DTypeMinInt(d));
}

double DTypeMaxDouble(DType d) {
  if (d.is_float()) return INFINITY;
  if (d.scalar() == S::kUInt64) return 18446744073709551615.0;
  return static_cast<double>(DTypeMaxInt(d));
}

double ConstToDouble(ConstValue v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  return static_cast<double>(std::get<int64_t>(v));
}

int64_t ConstToInt(ConstValue v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  if (const bool* b = std::get_if<bool>(&v)) return *b ? 1 : 0;
  return DoubleToInt(std::get<double>(v), dtypes::int64);
}

std::string ConstToString(ConstValue v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return absl::StrCat(*i);
  return absl::StrCat(std::get<double>(v));
}

ConstValue CastConst(ConstValue v, DType to) {
  if (to.is_bool()) {
    if (const double* d = std::get_if<double>(&v)) return *d != 0.0;  // NaN is true, as in C
    return ConstToInt(v) != 0;
  }
  if (to.is_float()) {
    double d = ConstToDouble(v);
    switch (to.scalar()) {
      case S::kFloat32: return static_cast<double>(static_cast<float>(d));
      case S::kFloat16: return RoundFloat16(d);
      case S::kBFloat16: return RoundBFloat16(d);
      default: return d;
    }
  }
  if (to.is_int()) {
    if (const double* d = std::get_if<double>(&v)) return WrapInt(DoubleToInt(*d, to), to);
    return WrapInt(ConstToInt(v), to);
  }
  return v;  // void: keep as given
}

}  // namespace tg
