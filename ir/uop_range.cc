// Range analysis: [vmin, vmax] per integer/bool node from its sources, the ground the symbolic rules
// stand on (x/c -> 0 when 0 <= x < c). Sums and products are taken in 128 bits, and anything that could
// leave the dtype's range falls back to the dtype's limits, since the real arithmetic would wrap.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <initializer_list>

#include "ir/uop_internal.h"

namespace tg::internal {
namespace {

using Wide = __int128;
using Range = std::pair<int64_t, int64_t>;

struct Bounds {
  int64_t lo, hi;
};

Range Limits(DType d) { return {DTypeMinInt(d), DTypeMaxInt(d)}; }

// The range [lo, hi] if the dtype can hold it, else the dtype's limits.
Range Fit(DType d, Wide lo, Wide hi) {
  if (lo < DTypeMinInt(d) || hi > DTypeMaxInt(d)) return Limits(d);
  return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
}

Range MinMaxOf(DType d, std::initializer_list<Wide> corners) {
  return Fit(d, std::min(corners), std::max(corners));
}

Wide Abs(int64_t v) { return v < 0 ? -Wide(v) : Wide(v); }

Bounds Of(const UOpRef& u) { return {u->vmin(), u->vmax()}; }
bool Known(const UOpRef& u) { return u->dtype().is_int() || u->dtype().is_bool(); }

int64_t BitMask(int64_t v) {  // smallest 2^k-1 >= v, for v >= 0
  return v <= 0 ? 0 : static_cast<int64_t>(~uint64_t{0} >> std::countl_zero(static_cast<uint64_t>(v)));
}

Range Div(DType d, Bounds a, Bounds b) {
  if (b.lo <= 0 && b.hi >= 0) return Limits(d);  // may divide by zero
  // Truncating division is monotonic in each argument on each side of zero, so corners bound it.
  return MinMaxOf(d, {Wide(a.lo) / b.lo, Wide(a.lo) / b.hi, Wide(a.hi) / b.lo, Wide(a.hi) / b.hi});
}

Range Mod(DType d, Bounds a, Bounds b) {
  if (b.lo <= 0 && b.hi >= 0) return Limits(d);
  if (b.lo == b.hi && a.lo >= 0 && a.lo / b.lo == a.hi / b.lo) return {a.lo % b.lo, a.hi % b.lo};
  Wide m = std::max(Abs(b.lo), Abs(b.hi)) - 1;  // C remainder takes the sign of a
  Wide lo = a.lo >= 0 ? 0 : std::max(Wide(a.lo), -m);
  Wide hi = a.hi <= 0 ? 0 : std::min(Wide(a.hi), m);
  return Fit(d, lo, hi);
}

Range Compare(Ops op, const UOpRef& x, const UOpRef& y) {
  if (!Known(x) || !Known(y)) return {0, 1};
  Bounds a = Of(x), b = Of(y);
  bool disjoint = a.hi < b.lo || b.hi < a.lo;
  bool same_point = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo;
  switch (op) {
    case Ops::kCmpLt:
      if (a.hi < b.lo) return {1, 1};
      if (a.lo >= b.hi) return {0, 0};
      return {0, 1};
    case Ops::kCmpNe: return disjoint ? Range{1, 1} : same_point ? Range{0, 0} : Range{0, 1};
    default: return disjoint ? Range{0, 0} : same_point ? Range{1, 1} : Range{0, 1};
  }
}

Range Bitwise(Ops op, DType d, Bounds a, Bounds b) {
  if (a.lo < 0 || b.lo < 0) return Limits(d);
  switch (op) {
    case Ops::kAnd: return {d.is_bool() ? a.lo & b.lo : 0, std::min(a.hi, b.hi)};
    case Ops::kOr: return Fit(d, std::max(a.lo, b.lo), BitMask(std::max(a.hi, b.hi)));
    default: return Fit(d, 0, BitMask(std::max(a.hi, b.hi)));  // XOR
  }
}

Range Shift(Ops op, DType d, Bounds a, Bounds b) {
  if (b.lo < 0 || b.hi > 62 || a.lo < 0) return Limits(d);
  if (op == Ops::kShr) return {a.lo >> b.hi, a.hi >> b.lo};
  return Fit(d, Wide(a.lo) << b.lo, Wide(a.hi) << b.hi);
}

Range DefineVar(DType d, const std::vector<UOpRef>& src, const Arg& arg) {
  if (const auto* v = std::get_if<std::vector<int64_t>>(&arg); v != nullptr && v->size() == 2) {
    return {(*v)[0], (*v)[1]};
  }
  if (src.size() == 2 && src[0]->is_const() && src[1]->is_const()) return {src[0]->const_int(), src[1]->const_int()};
  return Limits(d);
}

Range Cast(DType d, const UOpRef& x) {
  if (!Known(x)) return Limits(d);
  return Fit(d, x->vmin(), x->vmax());
}

Range Binary(Ops op, DType d, const std::vector<UOpRef>& src) {
  Bounds a = Of(src[0]), b = Of(src[1]);
  switch (op) {
    case Ops::kAdd: return Fit(d, Wide(a.lo) + b.lo, Wide(a.hi) + b.hi);
    case Ops::kMul:
      return MinMaxOf(d, {Wide(a.lo) * b.lo, Wide(a.lo) * b.hi, Wide(a.hi) * b.lo, Wide(a.hi) * b.hi});
    case Ops::kIdiv: return Div(d, a, b);
    case Ops::kMod: return Mod(d, a, b);
    case Ops::kMax: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case Ops::kAnd: case Ops::kOr: case Ops::kXor: return Bitwise(op, d, a, b);
    case Ops::kShl: case Ops::kShr: return Shift(op, d, a, b);
    default: return Limits(d);
  }
}

Range Where(DType d, const std::vector<UOpRef>& src) {
  Bounds c = Of(src[0]), a = Of(src[1]), b = Of(src[2]);
  if (c.lo == c.hi) return c.lo != 0 ? Range{a.lo, a.hi} : Range{b.lo, b.hi};
  return Fit(d, std::min(a.lo, b.lo), std::max(a.hi, b.hi));
}

}  // namespace

Range DeriveRange(Ops op, DType dtype, const std::vector<UOpRef>& src, const Arg& arg) {
  DType d = dtype.base();
  if (!d.is_int() && !d.is_bool()) return Limits(d);
  if (IsComparison(op)) return Compare(op, src[0], src[1]);
  switch (op) {
    case Ops::kConst: {
      int64_t v = 0;
      if (const auto* i = std::get_if<int64_t>(&arg)) v = *i;
      else if (const auto* b = std::get_if<bool>(&arg)) v = *b;
      else return Limits(d);
      return {v, v};
    }
    case Ops::kIota:
      if (const auto* n = std::get_if<int64_t>(&arg)) return {0, std::max<int64_t>(0, *n - 1)};
      return Limits(d);
    case Ops::kRange: case Ops::kSpecial:
      if (src.empty()) return {0, DTypeMaxInt(d)};
      return {0, std::max<int64_t>(0, src[0]->vmax() - 1)};
    case Ops::kDefineVar: return DefineVar(d, src, arg);
    // A bound variable ranges over its variable's bounds, not its value: no rewrite may specialize
    // a graph (and so a cached kernel) to the value of one call.
    case Ops::kBind:
      if (src.size() == 2) return {src[0]->vmin(), src[0]->vmax()};
      return Limits(d);
    case Ops::kCast: return Cast(d, src[0]);
    // Tensor-graph moves of an integer keep its values (a scalar variable reshaped to (1), say).
    case Ops::kReshape: case Ops::kExpand: case Ops::kPermute: case Ops::kContiguous: case Ops::kDetach:
      if (!src.empty() && src[0]->dtype() == d) return {src[0]->vmin(), src[0]->vmax()};
      return Limits(d);
    case Ops::kNeg: return Fit(d, -Wide(src[0]->vmax()), -Wide(src[0]->vmin()));
    case Ops::kWhere: return Where(d, src);
    default: break;
  }
  if (IsBinary(op) && src.size() == 2 && Known(src[0]) && Known(src[1])) return Binary(op, d, src);
  return Limits(d);
}

}  // namespace tg::internal
