// Golden registry of the "nn" family (cases_nn.py): functional ops and losses.
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "nn";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;
}  // namespace

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      {"linear", [](const In& in, const Args&) { return Out{in[0].linear(in[1], in[2])}; }},
      {"linear_nobias", [](const In& in, const Args&) { return Out{in[0].linear(in[1])}; }},
      {"layernorm", [](const In& in, const Args& a) { return Out{in[0].layernorm(a.Axes("axis"), a.Float("eps"))}; }},
      {"batchnorm", [](const In& in, const Args&) { return Out{in[0].batchnorm(in[1], in[2], in[3], in[4])}; }},
      {"dropout", [](const In& in, const Args& a) { return Out{in[0].dropout(a.Float("p"))}; }},
      {"sdpa", [](const In& in, const Args&) { return Out{in[0].scaled_dot_product_attention(in[1], in[2])}; }},
      {"sdpa_causal", [](const In& in, const Args&) {
         return Out{in[0].scaled_dot_product_attention(in[1], in[2], std::nullopt, 0.0, true)};
       }},
      {"sdpa_mask", [](const In& in, const Args&) { return Out{in[0].scaled_dot_product_attention(in[1], in[2], in[3])}; }},
      {"cross_entropy", [](const In& in, const Args& a) {
         return Out{in[0].cross_entropy(in[1], a.Str("reduction"), a.Float("label_smoothing"))};
       }},
      {"sparse_ce", [](const In& in, const Args& a) {
         return Out{in[0].sparse_categorical_crossentropy(in[1], a.Int("ignore_index"), a.Float("label_smoothing"),
                                                          a.Str("reduction"))};
       }},
      {"binary_crossentropy", [](const In& in, const Args& a) {
         return Out{in[0].binary_crossentropy(in[1], a.Str("reduction"))};
       }},
      {"binary_crossentropy_logits", [](const In& in, const Args& a) {
         return Out{in[0].binary_crossentropy_logits(in[1], a.Str("reduction"))};
       }},
      {"bce_logits_pos_weight", [](const In& in, const Args&) {
         return Out{in[0].binary_crossentropy_logits(in[1], "mean", in[2])};
       }},
      {"nll_loss", [](const In& in, const Args& a) {
         return Out{in[0].nll_loss(in[1], std::nullopt, std::nullopt, a.Str("reduction"))};
       }},
      {"nll_loss_weight", [](const In& in, const Args& a) {
         return Out{in[0].nll_loss(in[1], in[2], std::nullopt, a.Str("reduction"))};
       }},
      {"nll_loss_ignore", [](const In& in, const Args& a) {
         return Out{in[0].nll_loss(in[1], std::nullopt, a.Int("ignore_index"), a.Str("reduction"))};
       }},
  };
  return *ops;
}

}  // namespace tg::golden
