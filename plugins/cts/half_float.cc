// half_float.cc: bit-level binary16 conversions.
#include "plugins/cts/half_float.h"

#include <cmath>
#include <cstring>

namespace tg_cts {

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u;                 // NaN
  if (abs >= 0x477ff000u) return sign | 0x7c00u;                // rounds past 65504: infinity
  if (abs < 0x38800000u) {                                      // below 2^-14: a subnormal half (or 0)
    // The value in units of 2^-24, rounded to nearest even: scaling by 2^24 is exact in float.
    float scaled = std::fabs(f) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant = abs & 0x7fffffu, exp = (abs >> 23) - 127 + 15;
  uint32_t h = (exp << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fffu;                         // the 13 dropped bits
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;     // a carry into the exponent is right
  return sign | static_cast<uint16_t>(h);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  uint32_t x = exp == 31 ? sign | 0x7f800000u | (mant << 13) : sign | ((exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace tg_cts
