// half_float.h: IEEE 754 binary16 <-> float, for the host corpus's float16 buffers (the CTS has no
// compiler-side half type to lean on: it builds as plain C++20 against the ABI header).
#ifndef TG_PLUGINS_CTS_HALF_FLOAT_H_
#define TG_PLUGINS_CTS_HALF_FLOAT_H_

#include <cstdint>

namespace tg_cts {

// Round to nearest even; overflow becomes infinity, NaN stays NaN.
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);  // exact

}  // namespace tg_cts

#endif  // TG_PLUGINS_CTS_HALF_FLOAT_H_
