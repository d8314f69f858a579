// GPT-2 inference from a Hugging Face-layout safetensors checkpoint: the full-sequence forward and a
// fixed-size KV cache for decoding, one token per JIT replay. The model of apps/gpt2.cc (README.md).
#ifndef TG_APPS_GPT2_MODEL_H_
#define TG_APPS_GPT2_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/nn/nn.h"
#include "frontend/tg.h"

namespace tg::apps {

// Weights as HF's GPT2Model names them (an optional "transformer." prefix is dropped; the attention
// mask buffers "h.N.attn.bias"/"masked_bias" are ignored): wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj,
// ln_2, mlp.c_fc, mlp.c_proj}, ln_f. c_* are Conv1D: y = x W + b with W (in, out). The LM head is wte.
class Gpt2 {
 public:
  // Layers, width, vocabulary and context come from the tensors; |heads| is not stored in the weights
  // (0 = width / 64, as every released GPT-2). tg::Error naming any missing or misshapen tensor.
  explicit Gpt2(const std::string& safetensors_path, int64_t heads = 0);
  Gpt2(nn::StateDict state_dict, int64_t heads);

  // |tokens| int32 (1, t) -> logits (1, t, vocab), recomputing everything (no cache).
  Tensor Forward(const Tensor& tokens) const;
  // Feeds one token at position pos() through the KV cache and returns its next-token logits (vocab).
  // tg::Error once the context is full.
  std::vector<float> Step(int token);
  void ResetCache() { pos_ = 0; }
  int64_t pos() const { return pos_; }
  int64_t vocab() const { return vocab_; }
  int64_t context() const { return context_; }

 private:
  struct Dims {
    int64_t layers, dim, heads, vocab, context;
  };
  static Dims Measure(const nn::StateDict& sd, int64_t heads);
  Gpt2(nn::StateDict& sd, const Dims& dims);

  struct Layer {
    Tensor ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, out_w, out_b;
    Tensor cache_k, cache_v;  // (1, heads, context, head_dim), written in place by Step
  };
  Tensor Block(const Layer& l, const Tensor& x, const Tensor* step_pos);
  Tensor Attention(const Layer& l, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* step_pos);

  int64_t layers_, dim_, heads_, vocab_, context_;
  Tensor wte_, wpe_, lnf_w_, lnf_b_;
  std::vector<Layer> h_;
  int64_t pos_ = 0;
  Variable position_;  // the decoding position, [0, context)
  std::unique_ptr<Jit> step_;
};

}  // namespace tg::apps

#endif  // TG_APPS_GPT2_MODEL_H_
