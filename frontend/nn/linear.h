// tg::nn::Linear: y = x W^T + b, tinygrad's nn.Linear (weight (out, in), uniform +-1/sqrt(in)).
// A layer of tg::nn: a plain struct, called like a function, walked by StateVisitor.
#ifndef TG_FRONTEND_NN_LINEAR_H_
#define TG_FRONTEND_NN_LINEAR_H_

#include <cmath>
#include <optional>

#include "frontend/nn/init.h"
#include "frontend/nn/module.h"

namespace tg::nn {

struct Linear {
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : weight(internal::Param(internal::Uniform({out_features, in_features}, 1.0 / std::sqrt(in_features)))) {
    if (bias) this->bias = internal::Param(internal::Uniform({out_features}, 1.0 / std::sqrt(in_features)));
  }
  Tensor operator()(const Tensor& x) const { return x.linear(weight.transpose(), bias); }
  void visit(StateVisitor& v) { v("weight", weight), v("bias", bias); }

  Tensor weight;
  std::optional<Tensor> bias;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_LINEAR_H_
