// Golden registry of the "movement" family (cases_movement.py).
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "movement";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;

// The index lists of the "getitem_basic" cases, by their form number.
Tensor Basic(const Tensor& x, int64_t form) {
  if (form == 0) return x[{Slice{1, 5, 2}, Slice{.step = -2}}];
  return x[{NewAxis, Ellipsis, -1, Slice{1, 3}}];
}
}  // namespace

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      {"reshape", [](const In& in, const Args& a) { return Out{in[0].reshape(a.Ints("shape"))}; }},
      {"permute", [](const In& in, const Args& a) { return Out{in[0].permute(a.Axes("order"))}; }},
      {"expand", [](const In& in, const Args& a) { return Out{in[0].expand(a.Ints("shape"))}; }},
      {"flip", [](const In& in, const Args& a) { return Out{in[0].flip(a.Axes("axes"))}; }},
      {"transpose", [](const In& in, const Args&) { return Out{in[0].transpose()}; }},
      // high-level movement and indexing
      {"cat2", [](const In& in, const Args& a) { return Out{in[0].cat({in[1]}, static_cast<int>(a.Int("dim")))}; }},
      {"stack2", [](const In& in, const Args& a) { return Out{in[0].stack({in[1]}, static_cast<int>(a.Int("dim")))}; }},
      {"repeat", [](const In& in, const Args& a) { return Out{in[0].repeat(a.Ints("repeats"))}; }},
      {"repeat_interleave", [](const In& in, const Args& a) {
         return Out{in[0].repeat_interleave(a.Int("repeats"), static_cast<int>(a.Int("dim")))};
       }},
      {"roll", [](const In& in, const Args& a) { return Out{in[0].roll(a.Ints("shifts"), a.Axes("dims"))}; }},
      {"tril", [](const In& in, const Args& a) { return Out{in[0].tril(a.Int("diagonal"))}; }},
      {"triu", [](const In& in, const Args& a) { return Out{in[0].triu(a.Int("diagonal"))}; }},
      {"diagonal", [](const In& in, const Args& a) {
         return Out{in[0].diagonal(a.Int("offset"), static_cast<int>(a.Int("dim1")), static_cast<int>(a.Int("dim2")))};
       }},
      {"diag", [](const In& in, const Args&) { return Out{in[0].diag()}; }},
      {"unfold", [](const In& in, const Args& a) {
         return Out{in[0].unfold(static_cast<int>(a.Int("dim")), a.Int("size"), a.Int("step"))};
       }},
      {"flatten", [](const In& in, const Args& a) {
         return Out{in[0].flatten(static_cast<int>(a.Int("start")), static_cast<int>(a.Int("end")))};
       }},
      {"squeeze_unsqueeze", [](const In& in, const Args&) { return Out{in[0].squeeze(1).unsqueeze(-1)}; }},
      {"pad_mode", [](const In& in, const Args& a) { return Out{in[0].pad(a.Pairs("pads"), a.Str("mode"))}; }},
      {"getitem_basic", [](const In& in, const Args& a) { return Out{Basic(in[0], a.Int("form"))}; }},
      {"getitem_tensor", [](const In& in, const Args&) { return Out{in[0][{in[1]}]}; }},
      {"getitem_two", [](const In& in, const Args&) { return Out{in[0][{in[1], in[2]}]}; }},
      {"getitem_split", [](const In& in, const Args&) { return Out{in[0][{in[1], Slice{}, in[2]}]}; }},
      {"gather", [](const In& in, const Args& a) { return Out{in[0].gather(static_cast<int>(a.Int("dim")), in[1])}; }},
      {"scatter", [](const In& in, const Args& a) {
         return Out{in[0].scatter(static_cast<int>(a.Int("dim")), in[1], in[2])};
       }},
      {"scatter_reduce", [](const In& in, const Args& a) {
         return Out{in[0].scatter_reduce(static_cast<int>(a.Int("dim")), in[1], in[2], a.Str("reduce"),
                                         a.Bool("include_self"))};
       }},
  };
  return *ops;
}

}  // namespace tg::golden
