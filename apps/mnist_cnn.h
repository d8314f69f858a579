// The Fashion-MNIST model: tinygrad's beautiful_mnist CNN, narrowed so an epoch takes seconds, not
// minutes, on two CPU cores. Used by apps/fashion_mnist.cc and its smoke test (README.md).
#ifndef TG_APPS_MNIST_CNN_H_
#define TG_APPS_MNIST_CNN_H_

#include <cstdint>
#include <vector>

#include "frontend/nn/nn.h"

namespace tg::apps {

// (n, 1, 28, 28) -> logits (n, 10):
//   conv3x3(c1) relu conv3x3(c1) relu batchnorm maxpool2  -> (c1, 12, 12)
//   conv3x3(c2) relu conv3x3(c2) relu batchnorm maxpool2  -> (c2, 4, 4)
//   flatten, linear(c2 * 16 -> 10)
// beautiful_mnist uses 5x5/32 then 3x3/64 channels; with c1 = 16, c2 = 32 this reaches 90%+ in a few
// epochs at ~1/10 of the arithmetic. The parameters are nn::Conv2d's (same names and shapes as a
// PyTorch model's), but the convolutions run channels-last as patches @ weight: see Conv3x3.
struct MnistCnn {
  explicit MnistCnn(int64_t c1 = 16, int64_t c2 = 32)
      : conv1(1, c1, 3), conv2(c1, c1, 3), bn1(c1), conv3(c1, c2, 3), conv4(c2, c2, 3), bn2(c2),
        head(c2 * 16, 10) {}

  Tensor operator()(const Tensor& x) {
    Tensor h = x.permute({0, 2, 3, 1});  // (n, 28, 28, 1): channels-last from here on
    h = Pool(Norm(bn1, Conv3x3(conv2, Conv3x3(conv1, h).relu()).relu()));
    h = Pool(Norm(bn2, Conv3x3(conv4, Conv3x3(conv3, h).relu()).relu()));
    return head(h.permute({0, 3, 1, 2}).flatten(1));  // NCHW order, so weights match a PyTorch model's
  }

  // A 3x3 valid convolution of channels-last |x| (n, h, w, c) with |conv|'s (o, c, 3, 3) weight, as one
  // matmul of the nine shifted views (n, h-2, w-2, 9c) by (9c, o). Why not Tensor::conv2d: its pooled
  // form's backward (the sliding windows' gradient) compiles to 7-D reduces of gathered loads on the CPU
  // back end today, while matmul-shaped reduces get the SIMD heuristic: a W9 step took ~7x longer
  // through Tensor::conv2d when last measured.
  static Tensor Conv3x3(const nn::Conv2d& conv, const Tensor& x) {
    int64_t oh = x.shape()[1] - 2, ow = x.shape()[2] - 2, o = conv.weight.shape()[0];
    std::vector<Tensor> taps;
    for (int64_t ky = 0; ky < 3; ++ky)
      for (int64_t kx = 0; kx < 3; ++kx) taps.push_back(x.shrink({{0, x.shape()[0]}, {ky, ky + oh}, {kx, kx + ow},
                                                                  {0, x.shape()[3]}}));
    Tensor patches = taps[0].cat(std::vector<Tensor>(taps.begin() + 1, taps.end()), -1).contiguous();
    // The weight as o rows of (ky, kx, c), the taps' order, stored once a step (9-37 KB), times the
    // patches as nn::Linear does (patches @ w^T). Both kernels that read it then load vectors: the
    // forward along a row's 9c taps, which patches hold contiguously too; the patches' gradient (g @ w)
    // along the 9c patch columns it writes. The (o, c, 3, 3) parameter read through a permuted view made
    // each kernel gather the weight lane by lane (conv2's forward 2.6x, its input gradient 1.9x slower).
    Tensor w = conv.weight.permute({0, 2, 3, 1}).reshape({o, -1}).contiguous();
    return patches.matmul(w.transpose()) + *conv.bias;
  }
  static Tensor Norm(nn::BatchNorm& bn, const Tensor& x) {  // BatchNorm wants channels on axis 1
    return bn(x.permute({0, 3, 1, 2})).permute({0, 2, 3, 1});
  }
  static Tensor Pool(const Tensor& x) {  // 2x2 max pool, stride 2, channels-last
    int64_t n = x.shape()[0], h = x.shape()[1], w = x.shape()[2], c = x.shape()[3];
    return x.reshape({n, h / 2, 2, w / 2, 2, c}).max({2, 4});
  }
  void visit(nn::StateVisitor& v) {
    v("conv1", conv1), v("conv2", conv2), v("bn1", bn1), v("conv3", conv3), v("conv4", conv4), v("bn2", bn2);
    v("head", head);
  }
  int64_t num_parameters() {
    int64_t n = 0;
    for (const Tensor& t : nn::parameters(*this)) n += t.numel();
    return n;
  }

  nn::Conv2d conv1, conv2;
  nn::BatchNorm bn1;
  nn::Conv2d conv3, conv4;
  nn::BatchNorm bn2;
  nn::Linear head;
};

}  // namespace tg::apps

#endif  // TG_APPS_MNIST_CNN_H_
