// Golden registry of the "reduce" family (cases_reduce.py).
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "reduce";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;

std::optional<int> OptAxis(const Args& a) {
  return a.Has("axis") ? std::optional<int>(static_cast<int>(a.Int("axis"))) : std::nullopt;
}
}  // namespace

#define REDUCE(NAME) {#NAME, [](const In& in, const Args& a) { return Out{in[0].NAME(a.Axes("axis"), a.Bool("keepdim"))}; }}
#define STAT(NAME) {#NAME, [](const In& in, const Args& a) { return Out{in[0].NAME(a.Axes("axis"), a.Bool("keepdim"), a.Float("correction"))}; }}
#define PAIR_STAT(NAME) {#NAME, [](const In& in, const Args& a) { auto [x, y] = in[0].NAME(a.Axes("axis"), a.Bool("keepdim"), a.Float("correction")); return Out{x, y}; }}
#define ON_AXIS(NAME) {#NAME, [](const In& in, const Args& a) { return Out{in[0].NAME(static_cast<int>(a.Int("axis")))}; }}
#define PAIR_ON_AXIS(NAME) {#NAME, [](const In& in, const Args& a) { auto [x, y] = in[0].NAME(static_cast<int>(a.Int("axis"))); return Out{x, y}; }}

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      REDUCE(sum), REDUCE(max), REDUCE(min), REDUCE(mean), REDUCE(prod), REDUCE(logsumexp), REDUCE(any),
      REDUCE(all), STAT(var), STAT(std), PAIR_STAT(var_mean), PAIR_STAT(std_mean), ON_AXIS(softmax),
      ON_AXIS(log_softmax), ON_AXIS(softmin), ON_AXIS(cumsum), ON_AXIS(cumprod), PAIR_ON_AXIS(cummax),
      PAIR_ON_AXIS(cummin),
      {"sum_dtype", [](const In& in, const Args& a) {
         return Out{in[0].sum(a.Axes("axis"), a.Bool("keepdim"), *DTypeFromName(a.Str("dtype")))};
       }},
      {"argmax", [](const In& in, const Args& a) { return Out{in[0].argmax(OptAxis(a), a.Bool("keepdim"))}; }},
      {"argmin", [](const In& in, const Args& a) { return Out{in[0].argmin(OptAxis(a), a.Bool("keepdim"))}; }},
  };
  return *ops;
}

}  // namespace tg::golden
