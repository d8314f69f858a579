#include "compiler/codegen/transcendental.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

#include "ir/error.h"
#include "ir/pattern_matcher.h"

namespace tg::compiler {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The IEEE layout of a float type and the integer types of its width.
struct FloatLayout {
  DType sint, uint;
  int mantissa_bits, exponent_bias;
  int64_t exponent_mask;
};

FloatLayout LayoutOf(DType f) {
  if (f == dtypes::float64) return {dtypes::int64, dtypes::uint64, 52, 1023, 0x7ff};
  if (f == dtypes::float32) return {dtypes::int32, dtypes::uint32, 23, 127, 0xff};
  throw Error("transcendental: no polynomial for " + f.name() + " (float32 and float64 only)");
}

UOpRef Num(const UOpRef& like, double v) { return like->const_like(v); }
UOpRef Int(const UOpRef& like, int64_t v) { return like->const_like(v); }
UOpRef And(const UOpRef& a, int64_t mask) { return a->alu(Ops::kAnd, {Int(a, mask)}); }
UOpRef Or(const UOpRef& a, int64_t bits) { return a->alu(Ops::kOr, {Int(a, bits)}); }
UOpRef Shr(const UOpRef& a, int64_t n) { return a->alu(Ops::kShr, {Int(a, n)}); }
// Left shifts multiply: a signed left shift of a negative value is undefined in C.
UOpRef Shl(const UOpRef& a, int64_t n) { return a * Int(a, int64_t{1} << n); }

// Horner's rule, highest coefficient first.
UOpRef Poly(const UOpRef& x, const std::vector<double>& coeffs) {
  UOpRef acc = Num(x, coeffs[0]);
  for (size_t i = 1; i < coeffs.size(); ++i) acc = acc * x + Num(x, coeffs[i]);
  return acc;
}

// inf -> |inf|, -inf -> |minus_inf|, nan -> |nan|, anything else -> |finite|.
UOpRef MapSpecials(const UOpRef& x, const UOpRef& inf, const UOpRef& minus_inf, const UOpRef& nan,
                   const UOpRef& finite) {
  UOpRef not_special = ne(x, -kInf)->where(finite, minus_inf);
  return ne(x, kInf)->where(ne(x, x)->where(nan, not_special), inf);
}
UOpRef ZeroSpecials(const UOpRef& x) {
  UOpRef zero = Num(x, 0.0);
  return MapSpecials(x, zero, zero, zero, x);
}

// Round to the nearest integer, halves away from zero, as the float's signed integer type.
UOpRef RoundToInt(const UOpRef& d) {
  return (d + lt(d, 0.0)->where(Num(d, -0.5), Num(d, 0.5)))->cast(LayoutOf(d->dtype()).sint);
}

// 2^q as |f| for an integer q the exponent field can hold (normal range).
UOpRef Pow2(const UOpRef& q, DType f) {
  FloatLayout l = LayoutOf(f);
  return Shl(q + Int(q, l.exponent_bias), l.mantissa_bits)->bitcast(f);
}

// d * 2^e for an integer e up to twice the normal exponent range; d > 0 and normal.
UOpRef MulPow2(const UOpRef& d, const UOpRef& e) {
  UOpRef half = Shr(e, 1);
  return d * Pow2(half, d->dtype()) * Pow2(e - half, d->dtype());
}

// d * 2^e by adding to the exponent field; e is a float holding a small integer.
UOpRef AddToExponent(const UOpRef& d, const UOpRef& e) {
  FloatLayout l = LayoutOf(d->dtype());
  return (d->bitcast(l.sint) + Shl(e->cast(l.sint), l.mantissa_bits))->bitcast(d->dtype());
}

// floor(log2(d)) of a normal d >= 0, from its exponent field.
UOpRef ExponentOf(const UOpRef& d) {
  FloatLayout l = LayoutOf(d->dtype());
  return And(Shr(d->bitcast(l.sint), l.mantissa_bits), l.exponent_mask) - Int(d->bitcast(l.sint), l.exponent_bias);
}

// ---- sin: argument reduction modulo pi/2 ----

struct Reduced {
  UOpRef r;  // the remainder, in [-pi/4, pi/4]
  UOpRef q;  // int32 quadrant: q % 4 says which
};

// Cody-Waite: pi split into parts whose products with q are exact; for |d| up to ~40000.
Reduced CodyWaite(const UOpRef& d) {
  constexpr double kOneOverPi = 0.318309886183790671537767526745028724;
  UOpRef q, qf, r;
  if (d->dtype() == dtypes::float64) {
    // The quadrant's high part (multiples of 2^24) is reduced separately to keep each product exact.
    UOpRef high = (d * (kOneOverPi / 16777216.0))->cast(dtypes::int64)->cast(dtypes::float64) * 16777216.0;
    q = RoundToInt(d * kOneOverPi - high);
    qf = q->cast(dtypes::float64);
    r = high * -3.1415926218032836914 + d;
    r = qf * -3.1415926218032836914 + r;
    r = high * -3.1786509424591713469e-08 + r;
    r = qf * -3.1786509424591713469e-08 + r;
    r = high * -1.2246467864107188502e-16 + r;
    r = qf * -1.2246467864107188502e-16 + r;
    r = (high + qf) * -1.2736634327021899816e-24 + r;
  } else {
    q = RoundToInt(d * kOneOverPi);
    qf = q->cast(d->dtype());
    r = qf * -3.1414794921875 + d;
    r = qf * -0.00011315941810607910156 + r;
    r = qf * -1.9841872589410058936e-09 + r;
    r = qf * -1.2154201256553420762e-10 + r;
  }
  return {r, q->cast(dtypes::int32)};
}

// Payne-Hanek: |d| times 2/pi with 96 bits of 2/pi around d's exponent; for large |d| >= 1.
Reduced PayneHanek(const UOpRef& d) {
  static constexpr uint32_t kTwoOverPi[] = {0x00000000, 0x28be60db, 0x9391054a, 0x7f09d5f4,
                                            0x7d4d3770, 0x36d8a566, 0x4f10e410};
  constexpr int kWords = sizeof(kTwoOverPi) / sizeof(kTwoOverPi[0]);
  FloatLayout l = LayoutOf(d->dtype());
  // frexp: d = f * 2^e with f in [0.5, 1)
  UOpRef bits = d->bitcast(l.uint);
  int64_t sign_and_mantissa = d->dtype() == dtypes::float64 ? 0x800FFFFFFFFFFFFF : 0x807FFFFF;
  int64_t half_exponent = d->dtype() == dtypes::float64 ? 0x3FE0000000000000 : 0x3F000000;
  UOpRef f = Or(And(bits, sign_and_mantissa), half_exponent)->bitcast(d->dtype());
  UOpRef e = And(Shr(bits, l.mantissa_bits), l.exponent_mask)->cast(dtypes::int32) - (l.exponent_bias - 1);

  UOpRef ia = (f * 4.294967296e9)->cast(dtypes::uint64);
  UOpRef word = Shr(e->cast(dtypes::uint64), 5);
  UOpRef shift = And(e, 31)->cast(dtypes::uint64), back = Int(shift, 32) - shift;
  // kTwoOverPi[word + offset], as a chain of selects (no indexed constant tables in kernels)
  auto take = [&](int offset) {
    UOpRef an = UOp::Const(dtypes::uint64, int64_t{0});
    for (int count = kWords - 2 - offset; count >= 0; --count)
      an = ne(word, Int(word, count))->where(an, UOp::Const(dtypes::uint64, int64_t{kTwoOverPi[count + offset]}));
    return an;
  };
  UOpRef a[4] = {take(0), take(1), take(2), take(3)};
  auto low32 = [](const UOpRef& x) { return And(x, 0xFFFFFFFF); };
  auto join = [&](const UOpRef& x, const UOpRef& y) {
    return low32(x->alu(Ops::kShl, {shift}))->alu(Ops::kOr, {low32(y->alu(Ops::kShr, {back}))});
  };
  UOpRef hi = join(a[0], a[1]), mi = join(a[1], a[2]), lo = join(a[2], a[3]);
  UOpRef p = Shl(ia * hi, 32) + ia * mi + Shr(ia * lo, 32);  // wraps mod 2^64, as it should
  UOpRef q = Shr(p, 62)->cast(dtypes::int32);
  UOpRef r = And(p, 0x3FFFFFFFFFFFFFFF)->cast(d->dtype()) * 3.4061215800865545e-19;
  UOpRef below_half = lt(f, 0.5);
  return {below_half->where(r, r - std::numbers::pi / 2), below_half->where(q, q + 1)};
}

UOpRef SinOnQuarter(const UOpRef& d) {  // sin on [-pi/2, pi/2]
  if (d->dtype() == dtypes::float64)
    return d * Poly(d * d, {-7.97255955009037868891952e-18, 2.81009972710863200091251e-15,
                            -7.64712219118158833288484e-13, 1.60590430605664501629054e-10,
                            -2.50521083763502045810755e-08, 2.75573192239198747630416e-06,
                            -0.000198412698412696162806809, 0.00833333333333332974823815,
                            -0.166666666666666657414808, 1.0});
  return d * Poly(d * d, {2.6083159809786593541503e-06, -0.0001981069071916863322258, 0.00833307858556509017944336,
                          -0.166666597127914428710938, 1.0});
}

UOpRef QuadrantBit(const UOpRef& q, int64_t bit) { return ne(And(q, bit), Int(q, 0)); }
UOpRef SignIf(const UOpRef& cond, const UOpRef& like) { return cond->where(Num(like, -1.0), Num(like, 1.0)); }

// Cody-Waite's r is reduced modulo pi (q counts half turns); Payne-Hanek's modulo pi/2.
UOpRef SinSmall(const Reduced& x) {
  UOpRef s = SinOnQuarter(x.r);
  return s * SignIf(QuadrantBit(x.q, 1), s);
}
UOpRef SinLarge(const Reduced& x) {
  UOpRef s = SinOnQuarter(x.r + QuadrantBit(x.q, 1)->where(Num(x.r, std::numbers::pi / 2), Num(x.r, 0.0)));
  return s * SignIf(QuadrantBit(x.q, 2), s);
}

}  // namespace

UOpRef Exp2Polynomial(const UOpRef& d) {
  UOpRef x = ZeroSpecials(d);
  UOpRef q = RoundToInt(x);
  UOpRef s = x - q->cast(d->dtype());  // in [-0.5, 0.5]
  UOpRef u = d->dtype() == dtypes::float64
                 ? Poly(s, {0.4434359082926529454e-9, 0.7073164598085707425e-8, 0.1017819260921760451e-6,
                            0.1321543872511327615e-5, 0.1525273353517584730e-4, 0.1540353045101147808e-3,
                            0.1333355814670499073e-2, 0.9618129107597600536e-2, 0.5550410866482046596e-1,
                            0.2402265069591012214e+0, 0.6931471805599452862e+0, 0.1000000000000000000e+1})
                 : Poly(s, {0.1535920892e-3, 0.1339262701e-2, 0.9618384764e-2, 0.5550347269e-1, 0.2402264476e+0,
                            0.6931471825e+0, 1.0});
  u = MulPow2(u, q);
  bool f64 = d->dtype() == dtypes::float64;
  u = lt(d, f64 ? 1024.0 : 128.0)->where(u, Num(d, kInf));    // overflow (nan too: fixed below)
  u = lt(d, f64 ? -2000.0 : -150.0)->where(Num(d, 0.0), u);  // underflow (also -inf)
  return ne(d, d)->where(Num(d, kNan), u);
}

UOpRef Log2Polynomial(const UOpRef& d) {
  // Denormals are scaled into the normal range first.
  constexpr int kDenormalScale = 64;
  UOpRef is_small = lt(d, 1e-4);
  UOpRef a = is_small->where(d * std::ldexp(1.0, kDenormalScale), d);
  UOpRef e = ExponentOf(a * (1.0 / 0.75))->cast(d->dtype());  // m lands in [0.75, 1.5)
  UOpRef m = AddToExponent(a, -e);
  e = is_small->where(e - static_cast<double>(kDenormalScale), e);
  UOpRef x = (m - 1.0) / (m + 1.0), x2 = x * x;
  UOpRef r;
  if (d->dtype() == dtypes::float64) {
    UOpRef t = Poly(x2, {0.2211941750456081490e+0, 0.2200768693152277689e+0, 0.2623708057488514656e+0,
                         0.3205977477944495502e+0, 0.4121985945485324709e+0, 0.5770780162997058982e+0,
                         0.96179669392608091449});
    r = t * (x * x2) + e + x * 2.885390081777926774;
  } else {
    UOpRef t = Poly(x2, {0.4374550283e+0, 0.5764790177e+0, 0.9618012905120});
    r = t * (x * x2) + e + x * 2.8853900432586669922 + x * 3.2734474483568488616e-08;
  }
  r = ne(d, kInf)->where(r, Num(r, kInf));
  r = ne(d, 0.0)->where(r, Num(r, -kInf));  // +0 and -0
  r = lt(d, 0.0)->where(Num(r, kNan), r);
  return ne(d, d)->where(Num(r, kNan), r);
}

UOpRef SinPolynomial(const UOpRef& d) {
  constexpr double kSwitchOver = 30.0;  // Cody-Waite below, Payne-Hanek above
  UOpRef x = ZeroSpecials(d);
  UOpRef sign = ne(x, 0.0)->where(lt(x, 0.0)->where(Num(x, -1.0), Num(x, 1.0)), Num(x, 0.0));
  UOpRef magnitude = x * sign;
  UOpRef result = lt(magnitude, kSwitchOver)->where(SinSmall(CodyWaite(magnitude)), SinLarge(PayneHanek(magnitude)));
  UOpRef nan = Num(d, kNan);
  return MapSpecials(d, nan, nan, nan, result * sign);
}

UOpRef DecomposeTranscendentals(const UOpRef& sink, const std::function<bool(const UOpRef&)>& keep_native) {
  auto rewrite = [&keep_native](const Match& m) -> UOpRef {
    const UOpRef& u = m["x"];
    DType dt = u->dtype();
    if (!dt.is_float() || dt.count() > 1 || keep_native(u)) return nullptr;
    UOpRef (*poly)(const UOpRef&) = u->op() == Ops::kExp2 ? Exp2Polynomial
                                    : u->op() == Ops::kLog2 ? Log2Polynomial
                                                            : SinPolynomial;
    if (dt == dtypes::float32 || dt == dtypes::float64) return poly(u->src(0));
    // half types: the float32 op, which may itself stay native
    UOpRef wide = UOp::Make(u->op(), dtypes::float32, {u->src(0)->cast(dtypes::float32)});
    return (keep_native(wide) ? wide : poly(wide->src(0)))->cast(dt);
  };
  PatternMatcher rules({{Pat::Ops_({Ops::kExp2, Ops::kLog2, Ops::kSin}, {Pat::Var("d")}, "x"), rewrite}});
  return graph_rewrite(sink, rules);
}

}  // namespace tg::compiler
