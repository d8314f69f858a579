// Golden registry of the "creation" family (cases_creation.py).
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "creation";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;
}  // namespace

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      {"zeros", [](const In&, const Args& a) { return Out{Tensor::zeros(a.Ints("shape"))}; }},
      {"ones", [](const In&, const Args& a) { return Out{Tensor::ones(a.Ints("shape"))}; }},
      {"full", [](const In&, const Args& a) { return Out{Tensor::full(a.Ints("shape"), a.Num("v"))}; }},
      {"arange", [](const In&, const Args& a) {
         return Out{Tensor::arange(a.Num("start"), a.Num("stop"), a.Num("step"))};
       }},
      {"linspace", [](const In&, const Args& a) {
         return Out{Tensor::linspace(a.Float("start"), a.Float("stop"), a.Int("steps"))};
       }},
      {"eye", [](const In&, const Args& a) { return Out{Tensor::eye(a.Int("n"), a.Int("m"))}; }},
      {"zeros_like", [](const In& in, const Args&) { return Out{in[0].zeros_like()}; }},
      {"ones_like", [](const In& in, const Args&) { return Out{in[0].ones_like()}; }},
      {"full_like", [](const In& in, const Args& a) { return Out{in[0].full_like(a.Num("v"))}; }},
  };
  return *ops;
}

}  // namespace tg::golden
