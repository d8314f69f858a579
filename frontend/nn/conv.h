// tg::nn convolution layers: Conv2d (any number of spatial axes), Conv1d, ConvTranspose2d/1d, initialised
// as tinygrad's (weight and bias uniform +-1/sqrt(in_channels * prod(kernel))). Layers of tg::nn.
#ifndef TG_FRONTEND_NN_CONV_H_
#define TG_FRONTEND_NN_CONV_H_

#include <optional>

#include "frontend/nn/module.h"

namespace tg::nn {

// Input (batch, in_channels, *spatial); weight (out_channels, in_channels / groups, *kernel_size).
// A plain int kernel_size means a 2-D square kernel, `{k}` a 1-D one, `{kh, kw}` a 2-D one; stride,
// dilation and padding take the forms Tensor::conv2d takes.
struct Conv2d {
  Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size, const IntOrTuple& stride = 1,
         const IntOrTuple& padding = 0, const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true);
  Tensor operator()(const Tensor& x) const { return x.conv2d(weight, bias, groups, stride, dilation, padding); }
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  Shape kernel_size;
  IntOrTuple stride, padding, dilation;
  int64_t groups;
  Tensor weight;
  std::optional<Tensor> bias;
};

// Input (batch, in_channels, *spatial); weight (in_channels, out_channels / groups, *kernel_size).
struct ConvTranspose2d {
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0, const IntOrTuple& output_padding = 0,
                  const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true);
  Tensor operator()(const Tensor& x) const {
    return x.conv_transpose2d(weight, bias, groups, stride, dilation, padding, output_padding);
  }
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  Shape kernel_size;
  IntOrTuple stride, padding, output_padding, dilation;
  int64_t groups;
  Tensor weight;
  std::optional<Tensor> bias;
};

// 1-D forms over (batch, channels, length), as tinygrad's functions of the same names.
Conv2d Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
              int64_t padding = 0, int64_t dilation = 1, int64_t groups = 1, bool bias = true);
ConvTranspose2d ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1,
                                int64_t padding = 0, int64_t output_padding = 0, int64_t dilation = 1,
                                int64_t groups = 1, bool bias = true);

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_CONV_H_
