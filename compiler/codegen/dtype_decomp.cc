#include "compiler/codegen/dtype_decomp.h"

namespace tg::compiler {
namespace {

bool IsBf16(const UOpRef& u) { return u->dtype().base() == dtypes::bfloat16; }

UOpRef Widen(const UOpRef& u) { return IsBf16(u) ? u->cast(dtypes::float32) : u; }

// op(bf16...) -> cast(op(float32...), bf16); comparisons keep their bool result.
UOpRef ComputeInFloat(const Match& m) {
  const UOpRef& u = m["x"];
  Ops op = u->op();
  if (op == Ops::kCast || op == Ops::kBitcast) return nullptr;
  bool touches = IsBf16(u);
  for (const UOpRef& s : u->src()) touches = touches || IsBf16(s);
  if (!touches) return nullptr;
  std::vector<UOpRef> src;
  for (size_t i = 0; i < u->src().size(); ++i)
    // a WHERE's condition and a REDUCE's loop variables keep their types
    src.push_back((op == Ops::kWhere && i == 0) || (op == Ops::kReduce && i > 0) ? u->src(i) : Widen(u->src(i)));
  DType dt = IsBf16(u) ? dtypes::float32 : u->dtype();
  UOpRef widened = UOp::Make(op, dt, std::move(src), u->arg());
  return IsBf16(u) ? widened->cast(dtypes::bfloat16) : widened;
}

}  // namespace

const PatternMatcher& Bfloat16ToFloatRules() {
  static const PatternMatcher* rules = new PatternMatcher({
      {Pat::Ops_({Ops::kExp2, Ops::kLog2, Ops::kSin, Ops::kSqrt, Ops::kReciprocal, Ops::kNeg, Ops::kTrunc,
                  Ops::kAdd, Ops::kMul, Ops::kIdiv, Ops::kMod, Ops::kFdiv, Ops::kMax, Ops::kCmpLt, Ops::kCmpNe,
                  Ops::kCmpEq, Ops::kWhere, Ops::kMulAcc, Ops::kReduce},
                 {}, "x").allow_any_len(),
       ComputeInFloat},  // op(bf16) -> bf16(op(f32))
  });
  return *rules;
}

UOpRef DecomposeBfloat16(const UOpRef& sink) { return graph_rewrite(sink, Bfloat16ToFloatRules()); }

}  // namespace tg::compiler
