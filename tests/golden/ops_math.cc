// Golden registry of the "math" family: unary math, activations, casts (cases_math.py).
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "math";

namespace {

DType DTypeArg(const Args& a) { return *DTypeFromName(a.Str("dtype")); }

std::optional<Scalar> OptScalar(const Args& a, const std::string& key) {
  if (!a.Has(key)) return std::nullopt;
  return a.Num(key);
}

}  // namespace

#define UNARY(NAME) {#NAME, [](const std::vector<Tensor>& in, const Args&) { return std::vector<Tensor>{in[0].NAME()}; }}

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      UNARY(neg), UNARY(log), UNARY(log2), UNARY(log10), UNARY(exp), UNARY(exp2), UNARY(sqrt), UNARY(rsqrt),
      UNARY(sin), UNARY(cos), UNARY(tan), UNARY(asin), UNARY(acos), UNARY(atan), UNARY(trunc), UNARY(ceil),
      UNARY(floor), UNARY(round), UNARY(square), UNARY(sign), UNARY(abs), UNARY(reciprocal), UNARY(relu),
      UNARY(sigmoid), UNARY(logsigmoid), UNARY(hardsigmoid), UNARY(selu), UNARY(swish), UNARY(silu),
      UNARY(relu6), UNARY(hardswish), UNARY(tanh), UNARY(sinh), UNARY(cosh), UNARY(atanh), UNARY(asinh),
      UNARY(acosh), UNARY(erf), UNARY(quick_gelu), UNARY(mish), UNARY(softsign), UNARY(isnan), UNARY(isfinite),
      UNARY(logical_not), UNARY(float_), UNARY(half), UNARY(double_), UNARY(int_), UNARY(long_), UNARY(short_),
      UNARY(bool_),
      {"isinf", [](const std::vector<Tensor>& in, const Args&) { return std::vector<Tensor>{in[0].isinf()}; }},
      {"isinf_pos",
       [](const std::vector<Tensor>& in, const Args&) { return std::vector<Tensor>{in[0].isinf(true, false)}; }},
      {"gelu", [](const std::vector<Tensor>& in, const Args&) { return std::vector<Tensor>{in[0].gelu()}; }},
      {"gelu_none",
       [](const std::vector<Tensor>& in, const Args&) { return std::vector<Tensor>{in[0].gelu("none")}; }},
      {"elu", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].elu(a.Float("alpha", 1.0))};
       }},
      {"celu", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].celu(a.Float("alpha", 1.0))};
       }},
      {"leaky_relu", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].leaky_relu(a.Float("neg_slope", 0.01))};
       }},
      {"softplus", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].softplus(a.Float("beta", 1.0))};
       }},
      {"hardtanh", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].hardtanh(a.Float("min_val", -1.0), a.Float("max_val", 1.0))};
       }},
      {"clamp", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].clamp(OptScalar(a, "min"), OptScalar(a, "max"))};
       }},
      {"lerp", [](const std::vector<Tensor>& in, const Args&) {
         return std::vector<Tensor>{in[0].lerp(in[1], in[2])};
       }},
      {"lerp_scalar", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].lerp(in[1], a.Float("w"))};
       }},
      {"cast", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].cast(DTypeArg(a))};
       }},
      {"bitcast", [](const std::vector<Tensor>& in, const Args& a) {
         return std::vector<Tensor>{in[0].bitcast(DTypeArg(a))};
       }},
  };
  return *ops;
}

}  // namespace tg::golden
