// tg::nn::Dropout: zeroes elements with probability p while training (tg::Training), else identity.
// A stateless layer of tg::nn, so it can sit in a Sequential.
#ifndef TG_FRONTEND_NN_DROPOUT_H_
#define TG_FRONTEND_NN_DROPOUT_H_

#include "frontend/tensor.h"

namespace tg::nn {

struct Dropout {
  explicit Dropout(double p = 0.5) : p(p) {
    if (!(p >= 0 && p <= 1)) throw Error("Dropout: p must be in [0, 1]; got " + std::to_string(p));
  }
  Tensor operator()(const Tensor& x) const { return x.dropout(p); }

  double p;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_DROPOUT_H_
