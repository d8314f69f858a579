#include "ir/symbolic.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "gtest/gtest.h"

namespace tg {
namespace {

UOpRef I(int64_t v) { return UOp::Const(dtypes::index, v); }
UOpRef F(double v) { return UOp::Const(dtypes::float32, v); }
UOpRef B(bool v) { return UOp::Const(dtypes::bool_, v); }

// Simplify must land exactly on |want| (hash-consing makes that a pointer comparison).
void ExpectSimplifiesTo(const UOpRef& in, const UOpRef& want) {
  UOpRef got = Simplify(in);
  EXPECT_EQ(got.get(), want.get()) << "input:\n" << in->str() << "got:\n" << got->str() << "want:\n" << want->str();
}

int64_t FoldedInt(const UOpRef& e) {
  UOpRef out = Simplify(e);
  EXPECT_TRUE(out->is_const()) << out->str();
  return out->is_const() ? out->const_int() : -999999;
}

TEST(SymbolicTest, IntegerFoldingUsesCSemantics) {
  EXPECT_EQ(FoldedInt(I(7) / I(2)), 3);
  EXPECT_EQ(FoldedInt(I(-7) / I(2)), -3);  // truncation, not floor (-4)
  EXPECT_EQ(FoldedInt(I(7) / I(-2)), -3);
  EXPECT_EQ(FoldedInt(I(-7) % I(2)), -1);  // remainder takes the dividend's sign, not Python's 1
  EXPECT_EQ(FoldedInt(I(7) % I(-2)), 1);
  EXPECT_EQ(FoldedInt(I(3) + I(4) * I(5)), 23);
  EXPECT_EQ(FoldedInt(maximum(I(-3), I(2))), 2);
  EXPECT_EQ(FoldedInt(-I(5)), -5);
  EXPECT_EQ(FoldedInt(I(1)->alu(Ops::kShl, {I(4)})), 16);
  EXPECT_EQ(FoldedInt(I(-16)->alu(Ops::kShr, {I(2)})), -4);
  EXPECT_EQ(FoldedInt(I(6)->alu(Ops::kXor, {I(3)})), 5);
  EXPECT_EQ(FoldedInt(I(2147483647) + I(1)), -2147483648LL);  // int32 wraps
  UOpRef u8 = UOp::Const(dtypes::uint8, 250);
  EXPECT_EQ(FoldedInt(u8 + UOp::Const(dtypes::uint8, 10)), 4);
  EXPECT_EQ(Simplify(I(1) / I(0))->op(), Ops::kIdiv);  // undefined in C: left alone
}

TEST(SymbolicTest, FloatBoolAndCastFolding) {
  EXPECT_EQ(Simplify(F(1.5) + F(2.25))->const_value(), ConstValue(3.75));
  EXPECT_EQ(Simplify(F(1.0) / F(4.0))->const_value(), ConstValue(0.25));
  EXPECT_EQ(Simplify(F(0.1) * F(3.0))->const_value(), ConstValue(static_cast<double>(0.1f * 3.0f)));
  EXPECT_EQ(Simplify(F(4.0)->alu(Ops::kSqrt))->const_value(), ConstValue(2.0));
  EXPECT_EQ(Simplify(F(-2.7)->cast(dtypes::int32))->const_value(), ConstValue(int64_t{-2}));
  EXPECT_EQ(Simplify(I(300)->cast(dtypes::uint8))->const_value(), ConstValue(int64_t{44}));
  EXPECT_EQ(Simplify(lt(F(1.0), F(2.0)))->const_value(), ConstValue(true));
  EXPECT_EQ(Simplify(eq(I(3), I(3)))->const_value(), ConstValue(true));
  EXPECT_EQ(Simplify(logical_and(B(true), B(false)))->const_value(), ConstValue(false));
  EXPECT_EQ(Simplify(lt(I(1), I(2))->where(F(5.0), F(6.0)))->const_value(), ConstValue(5.0));
}

TEST(SymbolicTest, Identities) {
  UOpRef x = UOp::Variable("x", -10, 10);
  UOpRef y = UOp::Variable("y", 0, 10);
  ExpectSimplifiesTo(x + 0, x);
  ExpectSimplifiesTo(0 + x, x);
  ExpectSimplifiesTo(x * 1, x);
  ExpectSimplifiesTo(x * 0, I(0));
  ExpectSimplifiesTo(x / 1, x);
  ExpectSimplifiesTo(x % 1, I(0));
  ExpectSimplifiesTo(x - x, I(0));
  ExpectSimplifiesTo(-(-x), x);
  ExpectSimplifiesTo(x + x, x * 2);
  ExpectSimplifiesTo(x * 3 + x * 4, x * 7);
  ExpectSimplifiesTo(3 + x, x + 3);          // consts move right
  ExpectSimplifiesTo(2 * x, x * 2);
  ExpectSimplifiesTo((x + 3) + 4, x + 7);     // (x+c1)+c2
  ExpectSimplifiesTo((x * 3) * 4, x * 12);    // (x*c1)*c2
  ExpectSimplifiesTo((x + 2) + y, (x + y) + 2);
  ExpectSimplifiesTo(((x + 2) + y) - 2, x + y);
  ExpectSimplifiesTo((y + x) - x, y);
  ExpectSimplifiesTo((x + 1) * 3, x * 3 + 3);
  UOpRef f = UOp::Make(Ops::kDefineVar, dtypes::float32, {}, std::string("f"));
  ExpectSimplifiesTo(f * 0.0, f * 0.0);       // NaN*0 is NaN: floats keep x*0
  ExpectSimplifiesTo(f + 0.0, f);
}

TEST(SymbolicTest, BoolAndWhere) {
  UOpRef x = UOp::Variable("x", 0, 10);
  UOpRef c = lt(x, 5);
  ExpectSimplifiesTo(logical_and(c, B(true)), c);
  ExpectSimplifiesTo(logical_and(c, B(false)), B(false));
  ExpectSimplifiesTo(logical_or(c, B(true)), B(true));
  ExpectSimplifiesTo(logical_or(c, B(false)), c);
  ExpectSimplifiesTo(c->where(x, x), x);
  ExpectSimplifiesTo(B(true)->where(x, x + 1), x);
  ExpectSimplifiesTo(B(false)->where(x, x + 1), x + 1);
  ExpectSimplifiesTo(lt(x, 20)->where(x, x + 1), x);  // condition decided by range
  ExpectSimplifiesTo(x->cast(dtypes::index), x);
}

TEST(SymbolicTest, ComparisonsDecidedByRange) {
  UOpRef r = UOp::Range(16, 0);  // [0, 15]
  ExpectSimplifiesTo(lt(r, 16), B(true));
  ExpectSimplifiesTo(lt(r, 100), B(true));
  ExpectSimplifiesTo(lt(r, 0), B(false));
  ExpectSimplifiesTo(lt(r + 16, 16), B(false));
  ExpectSimplifiesTo(ne(r, -1), B(true));
  ExpectSimplifiesTo(eq(r, 20), B(false));
  ExpectSimplifiesTo(lt(r, r), B(false));
  EXPECT_EQ(Simplify(lt(r, 8))->op(), Ops::kCmpLt);  // undecided stays
  ExpectSimplifiesTo(lt(r * 4, 10), lt(r, 3));        // x*c<d -> x<ceil(d/c)
  ExpectSimplifiesTo(lt(r + 3, 10), lt(r, 7));        // x+c<d -> x<d-c
  ExpectSimplifiesTo(lt(I(15), r * 16), lt(I(0), r));   // d<x*c -> floor(d/c)<x
  ExpectSimplifiesTo(lt(I(17), r * 4), lt(I(4), r));    // 17/4 rounds down: r*4 > 17 iff r > 4
  ExpectSimplifiesTo(lt(I(10), r + 3), lt(I(7), r));    // d<x+c -> d-c<x
  // a lane of a cat block's lower bound: 16 <= b*16 + l for l in [0, 16) is 0 < b
  ExpectSimplifiesTo(lt(I(15), r * 16 + 7), lt(I(0), r));
  ExpectSimplifiesTo(maximum(r, 0), r);               // MAX by range
  ExpectSimplifiesTo(maximum(r, 20), I(20));
  EXPECT_EQ(Simplify(maximum(r, 5))->op(), Ops::kMax);
}

TEST(SymbolicTest, DivModFoldingWithRanges) {
  UOpRef r = UOp::Range(4, 0);  // [0, 3]
  UOpRef s = UOp::Range(6, 1);  // [0, 5]
  ExpectSimplifiesTo(r / 4, I(0));
  ExpectSimplifiesTo(r % 4, r);
  ExpectSimplifiesTo((r + 4) / 4, I(1));
  ExpectSimplifiesTo((r + 8) % 4, r);
  ExpectSimplifiesTo((s * 4 + r) / 4, s);               // (a*c+b)/c -> a when 0<=b<c
  ExpectSimplifiesTo((s * 4 + r) % 4, r);
  ExpectSimplifiesTo((s * 8 + r) / 4, s * 2);
  ExpectSimplifiesTo((s * 8 + r + 4) / 4, s * 2 + 1);
  UOpRef b = UOp::Range(10, 2);  // [0, 9]: b/4 does not fold, but the multiple of 4 comes out
  ExpectSimplifiesTo((s * 4 + b) / 4, s + b / 4);
  ExpectSimplifiesTo((s * 4 + b) % 4, b % 4);
  ExpectSimplifiesTo((b / 2) / 3, b / 6);               // (x/a)/b -> x/(a*b)
  ExpectSimplifiesTo((b % 12) % 4, b % 4);              // (x%(k*a))%a -> x%a
  ExpectSimplifiesTo((b / 4) * 4 + b % 4, b);           // (x/c)*c + x%c -> x
  ExpectSimplifiesTo(s + (b / 4) * 4 + b % 4, s + b);
  ExpectSimplifiesTo(b % 4 + (b / 4) * 4, b);
  UOpRef v = UOp::Variable("v", -8, 8);                 // may be negative: C truncation keeps these
  EXPECT_EQ(Simplify((v * 4 + r) / 4)->op(), Ops::kIdiv);
  ExpectSimplifiesTo(UOp::Variable("w", -3, 3) / 4, I(0));  // -3/4 == 0 in C
  ExpectSimplifiesTo(UOp::Variable("w", -3, 3) % 4, UOp::Variable("w", -3, 3));
}

// A common factor of the divisor and the big terms comes out when the small terms stay under it: a
// 16-lane vector along a row of 32-element blocks, lane l of step r at 16r + l, reads block (16r+l)/32
// = r/2 in every lane (tinygrad's gcd rule for floordiv), so the block's scale is one load, not 16.
TEST(SymbolicTest, CommonFactorOfDivisorAndTermsComesOut) {
  UOpRef r = UOp::Range(48, 0), l = UOp::Range(16, 1), row = UOp::Range(8, 2);
  ExpectSimplifiesTo((r * 16 + l) / 32, r / 2);
  ExpectSimplifiesTo((r * 16 + l) % 32, (r % 2) * 16 + l);
  ExpectSimplifiesTo((row * 768 + r * 16 + l) / 32, row * 24 + r / 2);  // 768 = 24 * 32 comes out whole
  ExpectSimplifiesTo((r * 48 + l * 3) / 96, r / 2);                     // g = gcd(96, 48) = 48 > 3 * 15
  UOpRef wide = UOp::Range(17, 3);  // [0, 16]: 16r + 16 reaches the next multiple of 16, nothing folds
  EXPECT_EQ(Simplify((r * 16 + wide) / 32)->op(), Ops::kIdiv);
  EXPECT_EQ(Simplify((r * 16 + wide) / 32)->src(1)->const_int(), 32);
}

TEST(SymbolicTest, ReshapePatternFolds) {
  // reshape (6, 5) -> (30,) -> (6, 5): the index math rangeify produces must fold back to the ranges.
  const int64_t K = 5;
  UOpRef r0 = UOp::Range(6, 0), r1 = UOp::Range(K, 1);
  ExpectSimplifiesTo((r0 * K + r1) / K, r0);
  ExpectSimplifiesTo((r0 * K + r1) % K, r1);
  ExpectSimplifiesTo((r1 + r0 * K) / K, r0);  // any term order
  // three axes: (2, 3, 4) flattened then split again
  UOpRef a = UOp::Range(2, 2), b = UOp::Range(3, 3), c = UOp::Range(4, 4);
  UOpRef flat = a * 12 + b * 4 + c;
  ExpectSimplifiesTo(flat / 12, a);
  ExpectSimplifiesTo((flat / 4) % 3, b);
  ExpectSimplifiesTo(flat % 4, c);
  ExpectSimplifiesTo((flat % 12) / 4, b);
  // and the re-flattened index is the original expression
  ExpectSimplifiesTo((flat / 12) * 12 + ((flat / 4) % 3) * 4 + flat % 4, Simplify(flat));
}

TEST(SymbolicTest, RangeAnalysisOfSimplifiedExpressions) {
  UOpRef r0 = UOp::Range(6, 0), r1 = UOp::Range(5, 1);
  UOpRef idx = Simplify(r0 * 5 + r1 + 3);
  EXPECT_EQ(idx->vmin(), 3);
  EXPECT_EQ(idx->vmax(), 32);
  UOpRef w = UOp::Variable("w", -4, 9);
  EXPECT_EQ(Simplify(maximum(w, 0) * 2)->vmin(), 0);
  EXPECT_EQ(Simplify(maximum(w, 0) * 2)->vmax(), 18);
  EXPECT_EQ(Simplify(w % 3)->vmin(), -2);
  EXPECT_EQ(Simplify(w % 3)->vmax(), 2);
}

TEST(SymbolicTest, LongSumSimplifiesWithoutBlowup) {
  UOpRef x = UOp::Variable("x", 0, 10);
  UOpRef e = x;
  for (int i = 0; i < 20000; ++i) e = (e + 1) - 1;
  ExpectSimplifiesTo(e, x);
}

TEST(SymbolicTest, EvalAluDirect) {
  std::vector<ConstValue> v = {int64_t{-7}, int64_t{2}};
  EXPECT_EQ(EvalAlu(Ops::kIdiv, dtypes::int32, v), ConstValue(int64_t{-3}));
  EXPECT_EQ(EvalAlu(Ops::kMod, dtypes::int32, v), ConstValue(int64_t{-1}));
  std::vector<ConstValue> zero = {int64_t{1}, int64_t{0}};
  EXPECT_EQ(EvalAlu(Ops::kIdiv, dtypes::int32, zero), std::nullopt);
  std::vector<ConstValue> big = {int64_t{-1}, int64_t{2}};  // uint64 max / 2
  EXPECT_EQ(EvalAlu(Ops::kIdiv, dtypes::uint64, big), ConstValue(INT64_MAX));
}

}  // namespace
}  // namespace tg

namespace tg {
namespace {

// Replaces each variable named in |ctx| by its CONST, so an expression can be evaluated by constant folding.
using Binding = absl::flat_hash_map<const UOp*, int64_t>;
const PatternMatcher& Substitute() {
  static const PatternMatcher pm({{Pat::Ops_({Ops::kRange, Ops::kDefineVar}, {}, "v"), [](const Match& m) -> UOpRef {
                                     const Binding& b = m.ctx<Binding>();
                                     auto it = b.find(m["v"].get());
                                     return it == b.end() ? nullptr : m["v"]->const_like(it->second);
                                   }}});
  return pm;
}

int64_t Eval(const UOpRef& e, Binding& b) {
  UOpRef out = Simplify(graph_rewrite(e, Substitute(), &b));
  EXPECT_TRUE(out->is_const()) << out->str();
  return out->is_const() ? out->const_int() : INT64_MIN;
}

// Random index expressions over two ranges and a variable that goes negative; division only by positive
// constants, as index math does. Simplify must not change the value at any point of the domain.
class RandomExpr {
 public:
  RandomExpr(std::vector<UOpRef> leaves, uint32_t seed) : leaves_(std::move(leaves)), state_(seed) {}
  UOpRef Make(int depth) {
    if (depth == 0 || Next(4) == 0) return Next(3) == 0 ? UOp::Const(dtypes::index, Next(9) - 2) : leaves_[Next(leaves_.size())];
    UOpRef a = Make(depth - 1);
    switch (Next(7)) {
      case 0: return a + Make(depth - 1);
      case 1: return a * (static_cast<int64_t>(Next(7)) - 2);
      case 2: return a / (static_cast<int64_t>(Next(6)) + 1);
      case 3: return a % (static_cast<int64_t>(Next(6)) + 1);
      case 4: return maximum(a, Make(depth - 1));
      case 5: return lt(a, Make(depth - 1))->where(a, Make(depth - 1));
      default: return a * Make(depth - 1) + a;
    }
  }

 private:
  uint32_t Next(uint32_t n) {
    state_ = state_ * 1664525u + 1013904223u;
    return (state_ >> 8) % n;
  }
  std::vector<UOpRef> leaves_;
  uint32_t state_;
};

TEST(SymbolicPropertyTest, SimplifyPreservesValuesOnTheWholeDomain) {
  UOpRef r0 = UOp::Range(4, 0), r1 = UOp::Range(6, 1), v = UOp::Variable("v", -5, 5);
  RandomExpr gen({r0, r1, v, r0 * 6 + r1}, 12345);
  int changed = 0;
  for (int i = 0; i < 120; ++i) {
    UOpRef e = gen.Make(4);
    UOpRef s = Simplify(e);
    if (s.get() != e.get()) ++changed;
    for (int64_t a : {0, 1, 3}) {
      for (int64_t b : {0, 2, 5}) {
        for (int64_t c : {-5, -1, 0, 4}) {
          Binding bind = {{r0.get(), a}, {r1.get(), b}, {v.get(), c}};
          int64_t want = Eval(e, bind), got = Eval(s, bind);
          ASSERT_EQ(got, want) << "r0=" << a << " r1=" << b << " v=" << c << "\ninput:\n" << e->str()
                               << "simplified:\n" << s->str();
        }
      }
    }
    ASSERT_GE(s->vmin(), DTypeMinInt(dtypes::index));
  }
  EXPECT_GT(changed, 40);  // the generator exercises the rules, not only the evaluator
}

}  // namespace
}  // namespace tg
