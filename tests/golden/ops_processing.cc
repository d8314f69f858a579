// Golden registry of the "processing" family (cases_processing.py).
#include "tests/golden/golden.h"

namespace tg::golden {

extern const char kGoldenFamily[] = "processing";

namespace {
using In = std::vector<Tensor>;
using Out = std::vector<Tensor>;
}  // namespace

const Registry& FamilyOps() {
  static const Registry* ops = new Registry{
      {"matmul", [](const In& in, const Args&) { return Out{in[0].matmul(in[1])}; }},
      // conv, pools, interpolate, einsum, sort
      {"conv", [](const In& in, const Args& a) {
         return Out{in[0].conv2d(in[1], std::nullopt, a.Int("groups"), a.Ints("stride"), a.Ints("dilation"),
                                 a.Ints("padding"))};
       }},
      {"conv_bias", [](const In& in, const Args& a) {
         return Out{in[0].conv2d(in[1], in[2], a.Int("groups"), a.Ints("stride"), a.Ints("dilation"), a.Ints("padding"))};
       }},
      {"conv_transpose", [](const In& in, const Args& a) {
         return Out{in[0].conv_transpose2d(in[1], std::nullopt, a.Int("groups"), a.Ints("stride"), a.Ints("dilation"),
                                           a.Ints("padding"), a.Ints("output_padding"))};
       }},
      {"max_pool", [](const In& in, const Args& a) {
         return Out{in[0].max_pool2d(a.Ints("kernel"), a.Ints("stride"), 1, a.Ints("padding"), a.Bool("ceil_mode"))};
       }},
      {"max_pool_indices", [](const In& in, const Args& a) {
         auto [v, i] = in[0].max_pool2d_with_indices(a.Ints("kernel"));
         return Out{v, i};
       }},
      {"avg_pool", [](const In& in, const Args& a) {
         return Out{in[0].avg_pool2d(a.Ints("kernel"), a.Ints("stride"), 1, a.Ints("padding"), a.Bool("ceil_mode"),
                                     a.Bool("count_include_pad"))};
       }},
      {"interpolate", [](const In& in, const Args& a) {
         return Out{in[0].interpolate(a.Ints("size"), a.Str("mode"), a.Bool("align_corners"))};
       }},
      {"einsum2", [](const In& in, const Args& a) { return Out{Tensor::einsum(a.Str("formula"), {in[0], in[1]})}; }},
      {"sort", [](const In& in, const Args& a) {
         auto [v, i] = in[0].sort(static_cast<int>(a.Int("dim")), a.Bool("descending"));
         return Out{v, i};
       }},
      {"topk", [](const In& in, const Args& a) {
         auto [v, i] = in[0].topk(a.Int("k"), static_cast<int>(a.Int("dim")));
         return Out{v, i};
       }},
  };
  return *ops;
}

}  // namespace tg::golden
