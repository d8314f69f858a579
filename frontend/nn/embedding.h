// tg::nn::Embedding: a lookup table of vocab_size rows (glorot-uniform, as tinygrad), indexed by ints.
// A layer of tg::nn; the lookup is a one-hot masked sum, so it fuses and differentiates.
#ifndef TG_FRONTEND_NN_EMBEDDING_H_
#define TG_FRONTEND_NN_EMBEDDING_H_

#include "frontend/nn/init.h"
#include "frontend/nn/module.h"

namespace tg::nn {

struct Embedding {
  Embedding(int64_t vocab_size, int64_t embed_size)
      : vocab_size(vocab_size), embed_size(embed_size),
        weight(internal::Param(Tensor::glorot_uniform({vocab_size, embed_size}))) {}
  // |idx| of any int dtype and shape (...); returns (..., embed_size). Out-of-range indices give zeros.
  Tensor operator()(const Tensor& idx) const;
  void visit(StateVisitor& v) { v("weight", weight); }

  int64_t vocab_size, embed_size;
  Tensor weight;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_EMBEDDING_H_
