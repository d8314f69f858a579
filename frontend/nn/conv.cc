// tg::nn convolution layers: argument checks and tinygrad's initialisation.
#include "frontend/nn/conv.h"

#include <cmath>

#include "frontend/nn/init.h"

namespace tg::nn {
namespace {

// tinygrad's make_tuple(kernel_size, 2): a plain int is a square 2-D kernel. Checks the channel counts too.
Shape CheckedKernel(const IntOrTuple& k, int64_t in_channels, int64_t out_channels, int64_t groups,
                    const char* layer) {
  if (in_channels <= 0 || out_channels <= 0 || groups <= 0 || in_channels % groups || out_channels % groups)
    throw Error(std::string(layer) + ": in_channels (" + std::to_string(in_channels) + ") and out_channels (" +
                std::to_string(out_channels) + ") must be positive multiples of groups (" + std::to_string(groups) + ")");
  Shape shape = k.scalar ? Shape{k.values[0], k.values[0]} : Shape(k.values.begin(), k.values.end());
  if (shape.empty()) throw Error(std::string(layer) + ": kernel_size must not be empty");
  for (int64_t d : shape)
    if (d <= 0) throw Error(std::string(layer) + ": kernel_size must be positive; got " + ShapeString(shape));
  return shape;
}

// 1 / sqrt(fan_in): the bound of both the weight and the bias.
double Bound(int64_t in_channels, const Shape& kernel) {
  double fan_in = static_cast<double>(in_channels);
  for (int64_t d : kernel) fan_in *= static_cast<double>(d);
  return 1.0 / std::sqrt(fan_in);
}

Shape Concat(Shape head, const Shape& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const IntOrTuple& padding, const IntOrTuple& dilation, int64_t groups, bool bias)
    : kernel_size(CheckedKernel(kernel_size, in_channels, out_channels, groups, "Conv2d")), stride(stride),
      padding(padding), dilation(dilation), groups(groups),
      weight(internal::Param(internal::Uniform(Concat({out_channels, in_channels / groups}, this->kernel_size),
                                               Bound(in_channels, this->kernel_size)))) {
  if (bias) this->bias = internal::Param(internal::Uniform({out_channels}, Bound(in_channels, this->kernel_size)));
}

ConvTranspose2d::ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                                 const IntOrTuple& stride, const IntOrTuple& padding,
                                 const IntOrTuple& output_padding, const IntOrTuple& dilation, int64_t groups,
                                 bool bias)
    : kernel_size(CheckedKernel(kernel_size, in_channels, out_channels, groups, "ConvTranspose2d")), stride(stride),
      padding(padding), output_padding(output_padding), dilation(dilation), groups(groups),
      weight(internal::Param(internal::Uniform(Concat({in_channels, out_channels / groups}, this->kernel_size),
                                               Bound(in_channels, this->kernel_size)))) {
  if (bias) this->bias = internal::Param(internal::Uniform({out_channels}, Bound(in_channels, this->kernel_size)));
}

Conv2d Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride, int64_t padding,
              int64_t dilation, int64_t groups, bool bias) {
  return Conv2d(in_channels, out_channels, IntOrTuple{kernel_size}, stride, padding, dilation, groups, bias);
}

ConvTranspose2d ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
                                int64_t padding, int64_t output_padding, int64_t dilation, int64_t groups, bool bias) {
  return ConvTranspose2d(in_channels, out_channels, IntOrTuple{kernel_size}, stride, padding, output_padding, dilation,
                         groups, bias);
}

}  // namespace tg::nn
