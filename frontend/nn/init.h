// Parameter creation shared by the tg::nn layers (namespace internal: not part of the API).
// Every parameter gets its own buffer: constant tensors are hash-consed, and two layers sharing one
// node would share gradients and optimizer updates.
#ifndef TG_FRONTEND_NN_INIT_H_
#define TG_FRONTEND_NN_INIT_H_

#include <vector>

#include "frontend/tensor.h"

namespace tg::nn::internal {

// A trainable leaf holding |init|'s value in a buffer of its own.
inline Tensor Param(Tensor init) { return init.realize().requires_grad(true); }

// A buffer filled with |value| (uploaded, no kernel): constant-initialised state.
inline Tensor Filled(const Shape& shape, float value) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return Tensor::from_vector(std::vector<float>(static_cast<size_t>(n), value), shape);
}

// Uniform in [-bound, bound), as tinygrad's layers draw their weights.
inline Tensor Uniform(const Shape& shape, double bound) { return Tensor::uniform(shape, -bound, bound); }

}  // namespace tg::nn::internal

#endif  // TG_FRONTEND_NN_INIT_H_
