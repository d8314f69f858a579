// lane_semantics-inl.h: what one lane of each tg-uops op computes, per dtype, exactly as the c
// dialect's C spells it (compiler/render/c_style.cc), minus C's undefined behaviour:
//  - integers compute in C's promoted type (int for the narrow ones) and wrap to their dtype; signed
//    overflow wraps; shift counts are taken modulo the promoted width (as x86 shifts do);
//  - IDIV and MOD by zero give 0, INT_MIN / -1 gives INT_MIN and INT_MIN % -1 gives 0 (C traps);
//  - a float CAST to an integer out of range (or NaN) gives what x86's cvttss2si gives: the
//    promoted type's minimum (INT_MIN, or INT64_MIN for i64, u32 and u64 from 2^64 up), truncated to
//    the dtype;
//  - float16 computes in float and rounds each result to half; bfloat16 only converts.
// Per-target (Highway's -inl.h convention): included inside each target's namespace by lane_ops.cc.
#if defined(TG_PLUGINS_CPU_LANE_SEMANTICS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TG_PLUGINS_CPU_LANE_SEMANTICS_INL_H_
#undef TG_PLUGINS_CPU_LANE_SEMANTICS_INL_H_
#else
#define TG_PLUGINS_CPU_LANE_SEMANTICS_INL_H_
#endif

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <math.h>
#include <type_traits>

#include "hwy/highway.h"
#include "plugins/cpu/half_float.h"
#include "plugins/cpu/uop_program.h"

HWY_BEFORE_NAMESPACE();
namespace tg_cpu::uops::HWY_NAMESPACE {

inline float Bf16ToF32(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
inline uint16_t F32ToBf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// T: a lane in memory; C: the type C computes it in (its promotion).
template <class TT, class CC>
struct LaneBase {
  using T = TT;
  using C = CC;
  static C Up(T x) { return static_cast<C>(x); }
  static T Down(C x) { return static_cast<T>(x); }  // integers wrap (C++20), floats round
};
template <DType D> struct Lane;
template <> struct Lane<DType::kbool> : LaneBase<uint8_t, int32_t> {
  static T Down(C x) { return x != 0; }
};
template <> struct Lane<DType::ki8> : LaneBase<int8_t, int32_t> {};
template <> struct Lane<DType::ki16> : LaneBase<int16_t, int32_t> {};
template <> struct Lane<DType::ki32> : LaneBase<int32_t, int32_t> {};
template <> struct Lane<DType::ki64> : LaneBase<int64_t, int64_t> {};
template <> struct Lane<DType::ku8> : LaneBase<uint8_t, int32_t> {};
template <> struct Lane<DType::ku16> : LaneBase<uint16_t, int32_t> {};
template <> struct Lane<DType::ku32> : LaneBase<uint32_t, uint32_t> {};
template <> struct Lane<DType::ku64> : LaneBase<uint64_t, uint64_t> {};
template <> struct Lane<DType::kf16> : LaneBase<uint16_t, float> {  // its bits: half_float.h
  static C Up(T x) { return HalfToFloat(x); }
  static T Down(C x) { return FloatToHalf(x); }
};
template <> struct Lane<DType::kbf16> : LaneBase<uint16_t, float> {
  static C Up(T x) { return Bf16ToF32(x); }
  static T Down(C x) { return F32ToBf16(x); }
};
template <> struct Lane<DType::kf32> : LaneBase<float, float> {};
template <> struct Lane<DType::kf64> : LaneBase<double, double> {};

template <DType D> constexpr bool kIsFloat = D == DType::kf16 || D == DType::kbf16 || D == DType::kf32 || D == DType::kf64;
template <DType D> constexpr bool kIsInt = D >= DType::ki8 && D <= DType::ku64;
template <DType D> constexpr bool kIsMath = D == DType::kf16 || D == DType::kf32 || D == DType::kf64;

template <class C> using Bits = std::make_unsigned_t<C>;

// ---- The ops, on promoted values; Allows<D> says which dtypes the parser lets through.
struct AddOp {
  template <DType D> static constexpr bool Allows() { return D != DType::kbf16; }
  template <class C> static C Do(C a, C b) {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(static_cast<Bits<C>>(a) + static_cast<Bits<C>>(b));
    else return a + b;
  }
};
struct MulOp {
  template <DType D> static constexpr bool Allows() { return D != DType::kbf16; }
  template <class C> static C Do(C a, C b) {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(static_cast<Bits<C>>(a) * static_cast<Bits<C>>(b));
    else return a * b;
  }
};
struct MaxOp {
  template <DType D> static constexpr bool Allows() { return D != DType::kbf16; }
  template <class C> static C Do(C a, C b) { return a < b ? b : a; }
};
struct FdivOp {
  template <DType D> static constexpr bool Allows() { return kIsMath<D>; }
  template <class C> static C Do(C a, C b) { return a / b; }
};
struct IdivOp {
  template <DType D> static constexpr bool Allows() { return kIsInt<D>; }
  template <class C> static C Do(C a, C b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<C>) if (b == -1) return static_cast<C>(Bits<C>{0} - static_cast<Bits<C>>(a));
    return a / b;
  }
};
struct ModOp {
  template <DType D> static constexpr bool Allows() { return kIsInt<D>; }
  template <class C> static C Do(C a, C b) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<C>) if (b == -1) return 0;
    return a % b;
  }
};
template <class F>
struct BitOp {
  template <DType D> static constexpr bool Allows() { return kIsInt<D> || D == DType::kbool; }
  template <class C> static C Do(C a, C b) { return F()(a, b); }
};
using XorOp = BitOp<std::bit_xor<>>;
using OrOp = BitOp<std::bit_or<>>;
using AndOp = BitOp<std::bit_and<>>;

struct NegOp {
  template <DType D> static constexpr bool Allows() { return D != DType::kbf16; }
  template <DType D, class C> static C Do(C a) {
    if constexpr (D == DType::kbool) return !a;
    else if constexpr (std::is_integral_v<C>) return static_cast<C>(Bits<C>{0} - static_cast<Bits<C>>(a));
    else return -a;
  }
};
// libm, in the dtype's precision (float for half, as the c dialect's MathCall).
#define TG_MATH_OP(Name, fn)                                                                  \
  struct Name {                                                                               \
    template <DType D> static constexpr bool Allows() { return kIsMath<D>; }                  \
    template <DType D, class C> static C Do(C a) {                                            \
      if constexpr (std::is_same_v<C, double>) return ::fn(a);                                \
      else return ::fn##f(a);                                                                 \
    }                                                                                         \
  };
TG_MATH_OP(Exp2Op, exp2)
TG_MATH_OP(Log2Op, log2)
TG_MATH_OP(SinOp, sin)
TG_MATH_OP(SqrtOp, sqrt)
TG_MATH_OP(TruncOp, trunc)
#undef TG_MATH_OP
struct ReciprocalOp {
  template <DType D> static constexpr bool Allows() { return kIsMath<D>; }
  template <DType D, class C> static C Do(C a) { return C(1) / a; }
};

template <class C> constexpr int kShiftMask = sizeof(C) * 8 - 1;
struct ShlOp {
  template <class C, class N> static C Do(C a, N n) {
    return static_cast<C>(static_cast<Bits<C>>(a) << (static_cast<int>(n) & kShiftMask<C>));
  }
};
struct ShrOp {
  template <class C, class N> static C Do(C a, N n) { return a >> (static_cast<int>(n) & kShiftMask<C>); }
};

struct CmpLtOp { template <class C> static bool Do(C a, C b) { return a < b; } };
struct CmpNeOp { template <class C> static bool Do(C a, C b) { return a != b; } };
struct CmpEqOp { template <class C> static bool Do(C a, C b) { return a == b; } };

// ---- CAST
// x86's truncating conversion to I (int32 or int64): out of range or NaN gives I's minimum.
template <class I, class F>
I TruncToInt(F v) {
  constexpr F lim = static_cast<F>(static_cast<Bits<I>>(1) << (sizeof(I) * 8 - 1));
  if (!(v >= -lim && v < lim)) return std::numeric_limits<I>::min();
  return static_cast<I>(v);
}

template <DType To, class F>
typename Lane<To>::T FloatToInt(F v) {
  using T = typename Lane<To>::T;
  if constexpr (To == DType::ki64) return TruncToInt<int64_t>(v);
  else if constexpr (To == DType::ku32) return static_cast<T>(TruncToInt<int64_t>(v));
  else if constexpr (To == DType::ku64) {
    constexpr F two63 = static_cast<F>(uint64_t{1} << 63);
    if (v < two63) return static_cast<T>(TruncToInt<int64_t>(v));
    if (v < two63 * 2) return static_cast<T>(v);
    return uint64_t{1} << 63;
  } else {
    return static_cast<T>(TruncToInt<int32_t>(v));
  }
}

template <DType From, DType To>
typename Lane<To>::T CastLane(typename Lane<From>::T x) {
  using TT = typename Lane<To>::T;
  const auto v = Lane<From>::Up(x);  // bool 0/1, a promoted integer, or the float (bfloat16 as float)
  if constexpr (To == DType::kbool) return v != 0;
  else if constexpr (To == DType::kbf16) return F32ToBf16(static_cast<float>(v));
  else if constexpr (To == DType::kf16) return DoubleToHalf(static_cast<double>(v));  // rounds once, as C
  else if constexpr (kIsFloat<From> && kIsInt<To>) return FloatToInt<To>(v);
  else if constexpr (From == DType::kbf16 || From == DType::kf16) return static_cast<TT>(v);
  else return static_cast<TT>(x);
}

}  // namespace tg_cpu::uops::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // TG_PLUGINS_CPU_LANE_SEMANTICS_INL_H_
