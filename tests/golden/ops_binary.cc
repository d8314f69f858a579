// Golden registry of the "binary" family (cases_binary.py): each op with tensors, with a scalar on
// the right ("<op>_scalar") and on the left ("r<op>_scalar"), through the C++ operators.
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "binary";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;
}  // namespace

#define BINARY(NAME, EXPR) {NAME, [](const In& in, const Args&) { const Tensor &a = in[0], &b = in[1]; return Out{EXPR}; }}
#define SCALAR(NAME, EXPR) {NAME, [](const In& in, const Args& args) { const Tensor& a = in[0]; Scalar s = args.Num("s"); return Out{EXPR}; }}

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      BINARY("add", a + b), BINARY("sub", a - b), BINARY("mul", a * b), BINARY("div", a / b),
      BINARY("maximum", a.maximum(b)), BINARY("minimum", a.minimum(b)),
      BINARY("lt", a < b), BINARY("gt", a > b), BINARY("le", a <= b), BINARY("ge", a >= b), BINARY("eq", a == b),
      BINARY("ne", a != b), BINARY("mod", a % b), BINARY("fmod", a.fmod(b)), BINARY("pow", a.pow(b)),
      BINARY("copysign", a.copysign(b)), BINARY("logaddexp", a.logaddexp(b)),
      BINARY("bitwise_and", a & b), BINARY("bitwise_or", a | b), BINARY("bitwise_xor", a ^ b),
      BINARY("lshift", a << b), BINARY("rshift", a >> b),
      SCALAR("add_scalar", a + s), SCALAR("sub_scalar", a - s), SCALAR("mul_scalar", a * s),
      SCALAR("div_scalar", a / s), SCALAR("radd_scalar", s + a), SCALAR("rsub_scalar", s - a),
      SCALAR("rmul_scalar", s * a), SCALAR("rdiv_scalar", s / a),
      SCALAR("lt_scalar", a < s), SCALAR("gt_scalar", a > s), SCALAR("le_scalar", a <= s),
      SCALAR("ge_scalar", a >= s), SCALAR("eq_scalar", a == s), SCALAR("ne_scalar", a != s),
      SCALAR("mod_scalar", a % s), SCALAR("copysign_scalar", a.copysign(s)),
      SCALAR("bitwise_and_scalar", a & s), SCALAR("bitwise_or_scalar", a | s), SCALAR("bitwise_xor_scalar", a ^ s),
      SCALAR("lshift_scalar", a << s), SCALAR("rshift_scalar", a >> s),
      {"bitwise_not", [](const In& in, const Args&) { return Out{~in[0]}; }},
      {"div_mode", [](const In& in, const Args& a) { return Out{in[0].div(in[1], a.Str("mode"))}; }},
      {"pow_scalar", [](const In& in, const Args& a) { return Out{in[0].pow(a.Num("e"))}; }},
      {"rpow_scalar", [](const In& in, const Args& a) { return Out{Tensor::pow(a.Num("b"), in[0])}; }},
      {"where", [](const In& in, const Args&) { return Out{in[0].where(in[1], in[2])}; }},
      {"where_scalars", [](const In& in, const Args& a) { return Out{in[0].where(a.Num("x"), a.Num("y"))}; }},
      {"masked_fill", [](const In& in, const Args& a) { return Out{in[0].masked_fill(in[1], a.Num("v"))}; }},
      {"masked_fill_tensor", [](const In& in, const Args&) { return Out{in[0].masked_fill(in[1], in[2])}; }},
  };
  return *ops;
}

}  // namespace tg::golden
