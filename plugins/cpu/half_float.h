// half_float.h: IEEE binary16 conversions in plain C++, rounding as a C compiler's _Float16 does
// (to nearest, ties to even; a NaN stays a quiet NaN with its sign and top payload bits). The
// interpreter keeps float16 lanes as their 16 bits and computes in float: for +, -, *, / and sqrt a
// float result rounded once to half is the correctly rounded half (float has more than 2 * 11 + 2 bits),
// so this equals half arithmetic. Written out because clang before 15 has no _Float16 on x86.
#ifndef TG_PLUGINS_CPU_HALF_FLOAT_H_
#define TG_PLUGINS_CPU_HALF_FLOAT_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tg_cpu {

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN (payload kept)
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else {  // zero or subnormal: mantissa * 2^-24, exact in float
    float f = std::ldexp(static_cast<float>(mantissa), -24);
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));  // NaN
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half, rounded at 2^-24
    float scaled = std::fabs(f) * 16777216.0f;  // exact: a power of two
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);  // to nearest, ties to even
  return static_cast<uint16_t>(sign | (((rounded >> 13) - (112u << 10)) & 0x7fffu));
}

// A double rounded once to half: first to float rounding to odd (the discarded bits kept as a sticky
// last bit), which a second rounding to the much narrower half cannot turn into a double rounding.
inline uint16_t DoubleToHalf(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return FloatToHalf(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return FloatToHalf(f);
}

}  // namespace tg_cpu

#endif  // TG_PLUGINS_CPU_HALF_FLOAT_H_
