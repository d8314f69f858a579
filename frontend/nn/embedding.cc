// tg::nn::Embedding's lookup.
#include "frontend/nn/embedding.h"

namespace tg::nn {

Tensor Embedding::operator()(const Tensor& idx) const {
  if (!idx.dtype().is_int())
    throw Error("Embedding: indices must be an int dtype; got " + idx.dtype().name() +
                " (cast with .cast(tg::dtypes::int32))");
  // (arange == idx[..., None])[..., None] selects one row per index; the sum over vocab reads it out.
  Tensor vocab = Tensor::arange(0, vocab_size, 1, dtypes::int32, weight.device());
  Tensor hit = vocab.eq(idx.cast(dtypes::int32).unsqueeze(-1)).unsqueeze(-1);
  return hit.where(weight, 0).sum({-2}, false, weight.dtype());
}

}  // namespace tg::nn
