#include "tests/fuzz/symbolic_fuzz.h"

#include <random>
#include <stdexcept>

#include "absl/container/flat_hash_map.h"
#include "ir/symbolic.h"

namespace tg::fuzz {
namespace {

// ---- generation ----
class ExprGen {
 public:
  explicit ExprGen(uint64_t seed) : rng_(seed) {}

  SymbolicCase Run() {
    SymbolicCase c;
    int nvars = 1 + Below(3);
    for (int i = 0; i < nvars; ++i) {
      int kind = Below(3);
      if (kind == 0) c.vars.push_back(UOp::Range(1 + Below(12), i));
      else if (kind == 1) c.vars.push_back(UOp::Special("gidx" + std::to_string(i), 1 + Below(9)));
      else {
        int lo = Below(15) - 10;
        c.vars.push_back(UOp::Variable("v" + std::to_string(i), lo, lo + Below(12)));
      }
    }
    vars_ = c.vars;
    c.expr = Int(2 + Below(3));
    return c;
  }

 private:
  int Below(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Below(100) < percent; }
  UOpRef C(int64_t v) { return UOp::Const(dtypes::index, v); }
  int64_t Divisor() {  // small, nonzero, mostly positive as index math has them
    int64_t d = 1 + Below(7);
    return Chance(15) ? -d : d;
  }

  UOpRef Int(int depth) {
    if (depth <= 0 || Chance(20)) return Chance(75) ? vars_[Below(static_cast<int>(vars_.size()))] : C(Below(17) - 8);
    UOpRef a = Int(depth - 1);
    switch (Below(11)) {
      case 9: return -maximum(-a, -Int(depth - 1));  // min, spelled as tinygrad's UOp.minimum spells it
      case 0: return a + Int(depth - 1);
      case 1: return a - Int(depth - 1);
      case 2: return Chance(70) ? a * C(Below(9) - 3) : a * Int(depth - 1);
      case 3: return a / C(Divisor());
      case 4: return a % C(Divisor());
      case 5: return maximum(a, Int(depth - 1));
      case 6: return Bool(depth - 1)->where(a, Int(depth - 1));
      case 7: return -a;
      case 8: return (a + C(Below(9))) / C(Divisor()) + a % C(Divisor());  // the shapes index math takes
      default: return a * C(Divisor()) + Int(depth - 1);
    }
  }

  UOpRef Bool(int depth) {
    UOpRef a = Int(depth), b = Chance(50) ? C(Below(17) - 8) : Int(depth);
    switch (Below(5)) {
      case 0: case 1: return lt(a, b);
      case 2: return ne(a, b);
      case 3: return eq(a, b);
      default: return logical_and(lt(a, b), Bool(depth - 1));
    }
  }

  std::mt19937_64 rng_;
  std::vector<UOpRef> vars_;
};

// ---- evaluation ----
bool Bounds(const UOpRef& v, int64_t* lo, int64_t* hi) {
  if (v->op() == Ops::kRange || v->op() == Ops::kSpecial) {
    *lo = 0;
    *hi = v->src(0)->const_int() - 1;
    return true;
  }
  if (v->op() == Ops::kDefineVar) {
    *lo = v->src(0)->const_int();
    *hi = v->src(1)->const_int();
    return true;
  }
  return false;
}

std::optional<int64_t> Alu(Ops op, const std::vector<int64_t>& x) {
  switch (op) {
    case Ops::kAdd: return x[0] + x[1];
    case Ops::kMul: return x[0] * x[1];
    case Ops::kIdiv: if (x[1] == 0) return std::nullopt; return x[0] / x[1];  // C: truncates
    case Ops::kMod: if (x[1] == 0) return std::nullopt; return x[0] % x[1];   // C: sign of dividend
    case Ops::kMax: return std::max(x[0], x[1]);
    case Ops::kNeg: return -x[0];
    case Ops::kCmpLt: return x[0] < x[1];
    case Ops::kCmpNe: return x[0] != x[1];
    case Ops::kCmpEq: return x[0] == x[1];
    case Ops::kAnd: return x[0] & x[1];
    case Ops::kOr: return x[0] | x[1];
    case Ops::kXor: return x[0] ^ x[1];
    case Ops::kShl: if (x[1] < 0 || x[1] > 30) return std::nullopt; return x[0] * (int64_t{1} << x[1]);
    case Ops::kShr: if (x[1] < 0 || x[1] > 30) return std::nullopt; return x[0] >> x[1];
    case Ops::kWhere: return x[0] ? x[1] : x[2];
    default: return std::nullopt;
  }
}

std::string Infix(const UOpRef& u) {
  static const absl::flat_hash_map<Ops, const char*> kSym = {
      {Ops::kAdd, "+"}, {Ops::kMul, "*"}, {Ops::kIdiv, "/"}, {Ops::kMod, "%"}, {Ops::kCmpLt, "<"},
      {Ops::kCmpNe, "!="}, {Ops::kCmpEq, "=="}, {Ops::kAnd, "&"}, {Ops::kOr, "|"}, {Ops::kXor, "^"},
      {Ops::kShl, "<<"}, {Ops::kShr, ">>"}};
  switch (u->op()) {
    case Ops::kConst: return std::to_string(u->const_int());
    case Ops::kRange: return "r" + std::to_string(u->arg_as<int64_t>()) + "[0," + std::to_string(u->src(0)->const_int() - 1) + "]";
    case Ops::kSpecial: return u->arg_as<std::string>() + "[0," + std::to_string(u->src(0)->const_int() - 1) + "]";
    case Ops::kDefineVar:
      return u->arg_as<std::string>() + "[" + std::to_string(u->src(0)->const_int()) + "," +
             std::to_string(u->src(1)->const_int()) + "]";
    case Ops::kNeg: return "-(" + Infix(u->src(0)) + ")";
    case Ops::kMax: return "max(" + Infix(u->src(0)) + ", " + Infix(u->src(1)) + ")";
    case Ops::kWhere: return "where(" + Infix(u->src(0)) + ", " + Infix(u->src(1)) + ", " + Infix(u->src(2)) + ")";
    case Ops::kCast: return "(" + u->dtype().name() + ")(" + Infix(u->src(0)) + ")";
    default: break;
  }
  auto it = kSym.find(u->op());
  if (it == kSym.end() || u->src().size() != 2) return std::string(OpName(u->op())) + "(...)";
  return "(" + Infix(u->src(0)) + " " + it->second + " " + Infix(u->src(1)) + ")";
}

}  // namespace

SymbolicCase GenerateSymbolic(uint64_t seed) { return ExprGen(seed).Run(); }

std::optional<int64_t> EvalInt(const UOpRef& root, const std::vector<UOpRef>& vars, const std::vector<int64_t>& values,
                               std::string* why) {
  absl::flat_hash_map<const UOp*, int64_t> val;
  for (size_t i = 0; i < vars.size(); ++i) val[vars[i].get()] = values[i];
  for (const UOpRef& u : root->toposort()) {
    if (val.contains(u.get())) continue;
    std::optional<int64_t> r;
    if (u->op() == Ops::kConst) r = u->const_int();
    else if (u->op() == Ops::kCast) r = u->dtype() == dtypes::bool_ ? int64_t{val[u->src(0).get()] != 0} : val[u->src(0).get()];
    else {
      std::vector<int64_t> x;
      for (const UOpRef& s : u->src()) x.push_back(val[s.get()]);
      r = Alu(u->op(), x);
    }
    if (!r) {
      *why = "undefined or unknown: " + std::string(OpName(u->op()));
      return std::nullopt;
    }
    if (*r < INT32_MIN || *r > INT32_MAX) {
      *why = "int32 overflow";
      return std::nullopt;
    }
    val[u.get()] = *r;
  }
  return val[root.get()];
}

std::optional<std::string> CheckSimplify(const SymbolicCase& c) {
  UOpRef simple = Simplify(c.expr);
  std::vector<int64_t> lo(c.vars.size()), hi(c.vars.size()), at(c.vars.size());
  for (size_t i = 0; i < c.vars.size(); ++i)
    if (!Bounds(c.vars[i], &lo[i], &hi[i])) throw std::logic_error("not a variable");
  at = lo;
  auto where = [&] {
    std::string s;
    for (size_t i = 0; i < c.vars.size(); ++i) s += " " + Infix(c.vars[i]) + "=" + std::to_string(at[i]);
    return "\n  before: " + Infix(c.expr) + "\n  after:  " + Infix(simple) + "\n  at" + s;
  };
  for (;;) {
    std::string why_before, why_after;
    auto before = EvalInt(c.expr, c.vars, at, &why_before);
    if (before) {
      auto after = EvalInt(simple, c.vars, at, &why_after);
      if (!after) return "simplified expression is " + why_after + " where the original is " + std::to_string(*before) + where();
      if (*after != *before)
        return "value " + std::to_string(*before) + " became " + std::to_string(*after) + where();
      if (*before < c.expr->vmin() || *before > c.expr->vmax())
        return "value " + std::to_string(*before) + " outside the original's [vmin, vmax] = [" +
               std::to_string(c.expr->vmin()) + ", " + std::to_string(c.expr->vmax()) + "]" + where();
      if (*after < simple->vmin() || *after > simple->vmax())
        return "value " + std::to_string(*after) + " outside the simplified's [vmin, vmax] = [" +
               std::to_string(simple->vmin()) + ", " + std::to_string(simple->vmax()) + "]" + where();
    }
    size_t i = 0;  // odometer over every assignment
    while (i < at.size() && at[i] == hi[i]) at[i] = lo[i], ++i;
    if (i == at.size()) return std::nullopt;
    ++at[i];
  }
}

}  // namespace tg::fuzz
