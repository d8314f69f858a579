#include "ir/symbolic.h"

#include <bit>
#include <cmath>
#include <numeric>
#include <vector>

namespace tg {

// ---- constant evaluation with C semantics ----

namespace {

std::optional<ConstValue> EvalFloat(Ops op, std::span<const ConstValue> v) {
  double a = ConstToDouble(v[0]);
  double b = v.size() > 1 ? ConstToDouble(v[1]) : 0.0;
  switch (op) {
    case Ops::kCast: case Ops::kTrunc: return op == Ops::kCast ? a : std::trunc(a);
    case Ops::kExp2: return std::exp2(a);
    case Ops::kLog2: return std::log2(a);
    case Ops::kSin: return std::sin(a);
    case Ops::kSqrt: return std::sqrt(a);
    case Ops::kReciprocal: return 1.0 / a;
    case Ops::kNeg: return -a;
    case Ops::kAdd: return a + b;
    case Ops::kMul: return a * b;
    case Ops::kFdiv: return a / b;
    case Ops::kMax: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    case Ops::kCmpLt: return a < b;
    case Ops::kCmpNe: return a != b;
    case Ops::kCmpEq: return a == b;
    case Ops::kMulAcc: return a * b + ConstToDouble(v[2]);
    default: return std::nullopt;
  }
}

// Wrapping arithmetic goes through uint64 so overflow is defined; CastConst then wraps to the dtype's width.
std::optional<ConstValue> EvalInt(Ops op, bool u64, std::span<const ConstValue> v) {
  int64_t a = ConstToInt(v[0]);
  int64_t b = v.size() > 1 ? ConstToInt(v[1]) : 0;
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case Ops::kCast: case Ops::kTrunc: return a;
    case Ops::kNeg: return static_cast<int64_t>(0 - ua);
    case Ops::kAdd: return static_cast<int64_t>(ua + ub);
    case Ops::kMul: return static_cast<int64_t>(ua * ub);
    case Ops::kMulAcc: return static_cast<int64_t>(ua * ub + static_cast<uint64_t>(ConstToInt(v[2])));
    case Ops::kIdiv: case Ops::kMod:
      if (b == 0 || (!u64 && a == INT64_MIN && b == -1)) return std::nullopt;
      if (u64) return static_cast<int64_t>(op == Ops::kIdiv ? ua / ub : ua % ub);
      return op == Ops::kIdiv ? a / b : a % b;  // C truncates toward zero
    case Ops::kMax: return u64 ? static_cast<int64_t>(std::max(ua, ub)) : std::max(a, b);
    case Ops::kCmpLt: return u64 ? ua < ub : a < b;
    case Ops::kCmpNe: return a != b;
    case Ops::kCmpEq: return a == b;
    case Ops::kXor: return a ^ b;
    case Ops::kOr: return a | b;
    case Ops::kAnd: return a & b;
    case Ops::kShl: case Ops::kShr:
      if (b < 0 || b >= 64) return std::nullopt;
      if (op == Ops::kShl) return static_cast<int64_t>(ua << b);
      return u64 ? static_cast<int64_t>(ua >> b) : a >> b;
    case Ops::kExp2: case Ops::kLog2: case Ops::kSin: case Ops::kSqrt: case Ops::kReciprocal:
      return EvalFloat(op, v);
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<ConstValue> EvalAlu(Ops op, DType operand, std::span<const ConstValue> values) {
  if (op == Ops::kWhere) return ConstToDouble(values[0]) != 0.0 ? values[1] : values[2];
  if (operand.is_float()) return EvalFloat(op, values);
  return EvalInt(op, operand.scalar() == ScalarType::kUInt64, values);
}

// ---- rule callbacks too long for one line ----

namespace {

using M = const Match&;

bool IsInt(DType d) { return d.is_int(); }
bool IsIntOrBool(DType d) { return d.is_int() || d.is_bool(); }
bool IsBool(DType d) { return d.is_bool(); }
Pat Int(std::string name) { return Pat::Var(std::move(name)).with_dtype(IsInt); }
Pat IntC(std::string name) { return Pat::Cvar(std::move(name)).with_dtype(IsInt); }
Pat Bool(std::string name) { return Pat::Var(std::move(name)).with_dtype(IsBool); }
int64_t Val(M m, const char* name) { return m[name]->const_int(); }

int64_t FloorDiv(__int128 a, int64_t b) {  // b > 0
  __int128 q = a / b;
  return static_cast<int64_t>(q * b > a ? q - 1 : q);
}

UOpRef FoldConst(M m) {
  const UOpRef& root = m["root"];
  std::vector<ConstValue> values;
  for (const UOpRef& s : root->src()) values.push_back(s->const_value());
  DType operand = root->src(root->op() == Ops::kWhere ? 1 : 0)->dtype();
  std::optional<ConstValue> v = EvalAlu(root->op(), operand, values);
  return v.has_value() ? root->const_like(*v) : nullptr;
}

// An integer node whose range is one point is that constant.
UOpRef FoldPointRange(M m) {
  const UOpRef& root = m["root"];
  if (root->is_const() || root->vmin() != root->vmax()) return nullptr;
  return root->const_like(root->vmin());
}

UOpRef MoveConstRight(M m) {
  const UOpRef& root = m["root"];
  if (root->src(1)->is_const()) return nullptr;
  return root->replace_src({root->src(1), root->src(0)});
}

UOpRef LiftConst(M m) {  // consts float to the top of a sum, where (x+c)+d folds them
  return m["y"]->is_const() ? nullptr : (m["x"] + m["y"]) + m["c"];
}

UOpRef WhereByRange(M m) {
  const UOpRef& c = m["c"];
  if (!IsIntOrBool(c->dtype()) || c->vmin() != c->vmax()) return nullptr;
  return c->vmin() != 0 ? m["a"] : m["b"];
}

UOpRef MaxByRange(M m) {
  const UOpRef &x = m["x"], &y = m["y"];
  if (x->vmin() >= y->vmax()) return x;
  if (y->vmin() >= x->vmax()) return y;
  return nullptr;
}

// x*c < d  <=>  x < ceil(d/c)  for c > 0
UOpRef LtOfProduct(M m) {
  int64_t c = Val(m, "c"), d = Val(m, "d");
  if (c <= 0) return nullptr;
  return lt(m["x"], -FloorDiv(-static_cast<__int128>(d), c));
}

// d < x*c  <=>  floor(d/c) < x  for c > 0 (a lower bound of a cat block, lane by lane)
UOpRef ConstLtProduct(M m) {
  int64_t c = Val(m, "c"), d = Val(m, "d");
  if (c <= 0) return nullptr;
  return lt(m["x"]->const_like(static_cast<int64_t>(FloorDiv(d, c))), m["x"]);
}

// ---- div and mod of sums: the index math rangeify produces ----

struct Term {
  UOpRef v;
  int64_t f;  // the term is v*f
};
struct Sum {
  std::vector<Term> terms;
  int64_t k = 0;  // constant part
};

// Flattens an ADD tree into factor*node terms, merging repeated nodes. Iterative: sums can be long.
Sum SplitSum(const UOpRef& x) {
  Sum sum;
  std::vector<const UOpRef*> stack{&x};
  while (!stack.empty()) {
    const UOpRef& u = *stack.back();
    stack.pop_back();
    if (u->op() == Ops::kAdd) {
      stack.push_back(&u->src(1));
      stack.push_back(&u->src(0));
    } else if (u->is_const()) {
      sum.k += u->const_int();
    } else {
      bool scaled = u->op() == Ops::kMul && u->src(1)->is_const();
      const UOpRef& v = scaled ? u->src(0) : u;
      int64_t f = scaled ? u->src(1)->const_int() : 1;
      auto same = std::find_if(sum.terms.begin(), sum.terms.end(), [&](const Term& t) { return t.v == v; });
      if (same != sum.terms.end()) same->f += f;
      else sum.terms.push_back({v, f});
    }
  }
  return sum;
}

UOpRef BuildSum(const UOpRef& like, const std::vector<Term>& terms, int64_t k) {
  UOpRef out;
  for (const Term& t : terms) {
    if (t.f == 0) continue;
    UOpRef term = t.f == 1 ? t.v : t.v * t.f;
    out = out == nullptr ? term : out + term;
  }
  if (out == nullptr) return like->const_like(k);
  return k == 0 ? out : out + k;
}

// x/c and x%c for c > 0. Splitting x = c*Q + R with R = sum((f%c)*v) + k%c, the quotient is Q + R/c whenever
// x >= 0 (so C's truncation is floor) and either R's range stays inside one multiple of c, or R >= 0.
UOpRef FoldDivMod(M m) {
  const UOpRef& x = m["x"];
  const int64_t c = Val(m, "c");
  const bool is_div = m["root"]->op() == Ops::kIdiv;
  if (c <= 0) return nullptr;
  if (int64_t q = x->vmin() / c; q == x->vmax() / c) return is_div ? x->const_like(q) : q == 0 ? x : x - q * c;
  if (x->vmin() < 0) return nullptr;
  Sum sum = SplitSum(x);
  std::vector<Term> quo, rem;
  __int128 lo = sum.k % c, hi = sum.k % c;
  bool moved = sum.k / c != 0;
  for (const Term& t : sum.terms) {
    quo.push_back({t.v, t.f / c});
    rem.push_back({t.v, t.f % c});
    moved |= t.f / c != 0;
    __int128 a = static_cast<__int128>(t.f % c) * t.v->vmin(), b = static_cast<__int128>(t.f % c) * t.v->vmax();
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  if (!moved) return nullptr;
  const int64_t q = FloorDiv(lo, c);
  UOpRef r = BuildSum(x, rem, sum.k % c);
  if (q == FloorDiv(hi, c)) return is_div ? BuildSum(x, quo, sum.k / c + q) : (q == 0 ? r : r - q * c);
  if (lo < 0) return nullptr;
  return is_div ? BuildSum(x, quo, sum.k / c) + r / c : r % c;
}

// x/c and x%c for c > 0 and x >= 0 where x = g*B + S: g = gcd(c, the factors of x's multi-unit terms)
// and the rest S stays in [0, g). Then x/c = B/(c/g) and x%c = (B%(c/g))*g + S, since S/g < 1 never
// carries B to the next multiple (tinygrad's gcd rule for floordiv). FoldDivMod takes the case g = c.
UOpRef DivByCommonFactor(M m) {
  const UOpRef& x = m["x"];
  const int64_t c = Val(m, "c");
  const bool is_div = m["root"]->op() == Ops::kIdiv;
  if (c <= 1 || x->vmin() < 0) return nullptr;
  Sum sum = SplitSum(x);
  int64_t g = c;
  bool any_big = false;
  for (const Term& t : sum.terms)
    if (t.f > 1 || t.f < -1) {
      g = std::gcd(g, t.f);
      any_big = true;
    }
  if (!any_big || g <= 1 || g == c) return nullptr;
  std::vector<Term> big, small;
  __int128 lo = sum.k, hi = sum.k;
  for (const Term& t : sum.terms) {
    if (t.f % g == 0) {
      big.push_back({t.v, t.f / g});
      continue;
    }
    small.push_back(t);
    __int128 a = static_cast<__int128>(t.f) * t.v->vmin(), b = static_cast<__int128>(t.f) * t.v->vmax();
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  if (lo < 0 || hi >= g) return nullptr;
  UOpRef quotient = BuildSum(x, big, 0);
  if (is_div) return quotient / (c / g);
  return (quotient % (c / g)) * g + BuildSum(x, small, sum.k);
}

UOpRef NestedDiv(M m) {  // (x/a)/b -> x/(a*b) for a, b > 0 (truncation composes)
  int64_t a = Val(m, "a"), b = Val(m, "b");
  if (a <= 0 || b <= 0) return nullptr;
  if (static_cast<__int128>(a) * b > DTypeMaxInt(m["x"]->dtype())) return nullptr;  // a*b would wrap
  return m["x"] / (a * b);
}

UOpRef NestedMod(M m) {  // (x%(k*a))%a -> x%a for a > 0
  int64_t outer = Val(m, "a"), inner = Val(m, "b");
  if (outer <= 0 || inner % outer != 0) return nullptr;
  return m["x"] % m["a"];
}

}  // namespace

// ---- the rules ----

const PatternMatcher& SymbolicRules() {
  static const PatternMatcher* rules = [] {
    const Pat x = Pat::Var("x"), y = Pat::Var("y"), ix = Int("x"), iy = Int("y");
    const Pat c = Pat::Cvar("c"), d = Pat::Cvar("d"), ic = IntC("c"), id = IntC("d"), ia = IntC("a"), ib = IntC("b");
    // EvalAlu folds what has a constant meaning; BITCAST and THREEFRY come back unfolded.
    const std::vector<Ops> unary = OpsWhere(IsUnary), binary = OpsWhere(IsBinary), ternary = OpsWhere(IsTernary);
    const std::vector<Ops> commutative = OpsWhere(IsCommutative), alu = OpsWhere(IsAlu);
    const Pat a = Pat::Cvar("a"), b = Pat::Cvar("b");
    return new PatternMatcher({
        // ** constant folding **
        {Pat::Ops_(unary, {a}, "root"), FoldConst},                                          // op(a) -> a'
        {Pat::Ops_(binary, {a, b}, "root"), FoldConst},                                      // a op b -> c
        {Pat::Ops_(ternary, {a, b, c}, "root"), FoldConst},                                // op(a,b,c) -> d
        {Pat::Ops_(alu, {}, "root").with_dtype(IsIntOrBool), FoldPointRange},                // vmin==vmax -> vmin
        {Pat::Ops_(commutative, {c, x}, "root"), MoveConstRight},                            // c op x -> x op c
        // ** self folding **
        {x + 0, [](M m) { return m["x"]; }},                                                 // x+0 -> x
        {x * 1, [](M m) { return m["x"]; }},                                                 // x*1 -> x
        {ix * 0, [](M m) { return m["x"]->const_like(0); }},                                 // x*0 -> 0
        {x / 1, [](M m) { return m["x"]; }},                                                 // x/1 -> x
        {ix % 1, [](M m) { return m["x"]->const_like(0); }},                                 // x%1 -> 0
        {-(-x), [](M m) { return m["x"]; }},                                                 // -(-x) -> x
        {ix + ix * -1, [](M m) { return m["x"]->const_like(0); }},                           // x-x -> 0
        {ix.lt(ix), [](M) { return UOp::Const(dtypes::bool_, false); }},                      // x<x -> false
        {ix.ne(ix), [](M) { return UOp::Const(dtypes::bool_, false); }},                     // x!=x -> false
        {x.max(x), [](M m) { return m["x"]; }},                                              // max(x,x) -> x
        {(ix % iy) % iy, [](M m) { return m["x"] % m["y"]; }},                               // (x%y)%y -> x%y
        {Bool("x") & c, [](M m) { return m["c"]->const_int() ? m["x"] : m["c"]; }},          // x&T -> x; x&F -> F
        {Bool("x") | c, [](M m) { return m["c"]->const_int() ? m["c"] : m["x"]; }},          // x|T -> T; x|F -> x
        {Pat::Op(Ops::kCast, {x}, "root"),
         [](M m) { return m["root"]->dtype() == m["x"]->dtype() ? m["x"] : nullptr; }},      // cast(x: T -> T) -> x
        // ** where **
        {Pat::Any().where(x, x), [](M m) { return m["x"]; }},                                // c ? x : x -> x
        {Pat::Var("c").where(Pat::Var("a"), Pat::Var("b")), WhereByRange},                   // c known -> a or b
        // ** combining terms (ints: float addition does not associate) **
        {ix + ix, [](M m) { return m["x"] * 2; }},                                           // x+x -> x*2
        {ix * ic + ix * id, [](M m) { return m["x"] * (m["c"] + m["d"]); }},                 // x*c+x*d -> x*(c+d)
        {ix * ic + ix, [](M m) { return m["x"] * (m["c"] + 1); }},                           // x*c+x -> x*(c+1)
        {(iy + ix * ic) + ix * id, [](M m) { return m["y"] + m["x"] * (m["c"] + m["d"]); }}, // y+x*c+x*d -> y+x*(c+d)
        {(iy + ix) + ix * id, [](M m) { return m["y"] + m["x"] * (m["d"] + 1); }},           // (y+x)+x*d -> y+x*(d+1)
        {(iy + ix * ic) + ix, [](M m) { return m["y"] + m["x"] * (m["c"] + 1); }},           // (y+x*c)+x -> y+x*(c+1)
        {(iy + ix) + ix, [](M m) { return m["y"] + m["x"] * 2; }},                           // (y+x)+x -> y+x*2
        {(ix + ic) + id, [](M m) { return m["x"] + (m["c"] + m["d"]); }},                    // (x+c)+d -> x+(c+d)
        {(ix * ic) * id, [](M m) { return m["x"] * (m["c"] * m["d"]); }},                    // (x*c)*d -> x*(c*d)
        {(ix + ic) + iy, LiftConst},                                                         // (x+c)+y -> (x+y)+c
        {(ix + iy) * ic, [](M m) { return m["x"] * m["c"] + m["y"] * m["c"]; }},             // (x+y)*c -> x*c+y*c
        // ** comparisons and max **
        {(ix * ic).lt(id), LtOfProduct},                                                     // x*c<d -> x<ceil(d/c)
        {(ix + ic).lt(id), [](M m) { return lt(m["x"], m["d"] - m["c"]); }},                 // x+c<d -> x<d-c
        {id.lt(ix * ic), ConstLtProduct},                                                    // d<x*c -> floor(d/c)<x
        {id.lt(ix + ic), [](M m) { return lt(m["d"] - m["c"], m["x"]); }},                   // d<x+c -> d-c<x
        {ix.max(iy), MaxByRange},                                                            // max(x,y) -> x if x>=y
        // ** div and mod **
        {(ix / ia) / ib, NestedDiv},                                                         // (x/a)/b -> x/(a*b)
        {(ix % ib) % ia, NestedMod},                                                         // (x%(k*a))%a -> x%a
        {(ix / ic) * ic + ix % ic, [](M m) { return m["x"]; }},                              // (x/c)*c + x%c -> x
        {(iy + (ix / ic) * ic) + ix % ic, [](M m) { return m["y"] + m["x"]; }},              // y+(x/c)*c+x%c -> y+x
        {(iy + ix % ic) + (ix / ic) * ic, [](M m) { return m["y"] + m["x"]; }},              // y+x%c+(x/c)*c -> y+x
        {Pat::Op(Ops::kIdiv, {ix, ic}, "root"), FoldDivMod},                                 // (a*c+b)/c -> a+b/c
        {Pat::Op(Ops::kMod, {ix, ic}, "root"), FoldDivMod},                                  // (a*c+b)%c -> b%c
        {Pat::Op(Ops::kIdiv, {ix, ic}, "root"), DivByCommonFactor},                          // (16r+l)/32 -> r/2
        {Pat::Op(Ops::kMod, {ix, ic}, "root"), DivByCommonFactor},                           // (16r+l)%32 -> (r%2)*16+l
    });
  }();
  return *rules;
}

UOpRef Simplify(const UOpRef& root) { return graph_rewrite(root, SymbolicRules()); }

}  // namespace tg
