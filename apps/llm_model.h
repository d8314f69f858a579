// A LLaMA-family decoder (llama, mistral, qwen2 by their config.json): RMSNorm, rotary embeddings,
// grouped-query attention, SwiGLU MLP, tied or untied LM head, from Hugging Face safetensors weights
// or GGUF files (apps/llm_gguf.h). Weights stay on the device as stored: float16/bfloat16 ones in their
// dtype where the device has it, quantized GGUF ones as their blocks, turned into float32 inside the
// kernels that read them. Each layer's q, k and v projections are one weight of their rows, so one
// matmul computes the three and a one-token step launches one kernel for them instead of three (a small
// step's time is mostly its launches); only GGUF ones quantized in different types stay three. The
// model of apps/llm.cc (README.md's Apps section).
//
// The KV cache holds |context| positions per layer. Prefill() feeds a prompt in one forward pass over the
// first bucket of cache slots that holds it (16, 32, 64, ... up to |context|), masked to the positions
// written. Step() feeds one token under one tg::Jit capture for every position: the position is a
// tg::Variable and the step attends over the cache cut to the symbolic length pos + 1 (shrink_to), so
// its loops run to the position and nothing compiles after the first step (docs/variables.md).
#ifndef TG_APPS_LLM_MODEL_H_
#define TG_APPS_LLM_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <optional>
#include <vector>

#include "apps/llm_config.h"
#include "apps/llm_rope.h"
#include "frontend/jit.h"
#include "frontend/nn/norm.h"
#include "frontend/nn/state.h"
#include "frontend/tg.h"

namespace tg::apps {

class LlmModel {
 public:
  // Weights named as HF's *ForCausalLM saves them: model.embed_tokens, model.layers.N.{input_layernorm,
  // self_attn.{q,k,v,o}_proj, post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm, lm_head
  // (absent when tied); a layer's self_attn.qkv_proj (.weight, and .bias where the config has
  // qkv_bias), rows of q then k then v, may stand for its q_proj, k_proj and v_proj (apps/llm_gguf.h
  // gives quantized ones so). Separate stored q, k and v weights (a checkpoint's) are joined here, copied
  // once into one buffer in their dtype; lazy ones (GGUF dequantizations of different types) stay three
  // matmuls. Likewise a layer's mlp.gate_up_interleaved.weight (2 x intermediate, hidden), gate's row i
  // then up's row i for every i, may stand for its gate_proj and up_proj, and stored ones are joined so.
  // tg::Error naming the first missing or misshapen tensor. |context| caps the cache (0 = the config's
  // max_position_embeddings). A float32 weight already on the default device is used as
  // given: a lazy one (GGUF's dequantized blocks) is computed inside each kernel that reads it.
  LlmModel(const LlmConfig& config, nn::StateDict weights, int64_t context = 0);
  LlmModel(const LlmModel&) = delete;  // the Jits capture |this|
  LlmModel& operator=(const LlmModel&) = delete;

  // |tokens| int32 (1, t) -> logits (1, t, vocab) for positions 0..t-1, without the cache.
  Tensor Forward(const Tensor& tokens) const;
  // Feeds |tokens| at positions pos()..pos()+n-1 through the cache; the last one's next-token logits.
  // tg::Error when they do not fit the context or an id is outside the vocabulary.
  std::vector<float> Prefill(const std::vector<int>& tokens);
  // Prefill of one token, replayed under the one tg::Jit capture of a step.
  std::vector<float> Step(int token);
  void ResetCache() { pos_ = 0; }
  int64_t pos() const { return pos_; }
  int64_t context() const { return context_; }
  int64_t vocab() const { return config_.vocab_size; }
  const LlmConfig& config() const { return config_; }
  // The kernels a decode step launches (0 before the step is captured, on its second call).
  size_t captured_kernels() const { return step_ ? step_->captured_kernels() : 0; }
  // The bytes of the device buffers the weights are read from, by dtype name: {"float16": ...} for an
  // F16 checkpoint; for a quantized GGUF one its blocks ("uint16"), or Q8_0's int8 quants and float16
  // scales, and the norms ("float32").
  std::map<std::string, int64_t> weight_bytes() const;

 private:
  struct Layer {
    nn::RMSNorm attn_norm;
    // The q, k and v projections: one weight of their rows in that order, which one matmul computes; or
    // the three, where they are lazy dequantizations of different types (QkvWeightsOn in the .cc).
    std::vector<Tensor> qkv;
    Tensor o;
    nn::RMSNorm mlp_norm;
    Tensor gate, up, down;
    std::optional<Tensor> qkv_bias;  // qwen2's q, k and v biases, joined in that order
    Tensor cache_k, cache_v;  // (1, kv_heads, context, head_dim), written in place
  };
  // The cache's slots the consecutive positions |positions| (int32, (t)) are written to, and the slots
  // attended: the |span| first (a prefill), or, when |length| is set (a step), the first |length|, a
  // symbolic length of the position variable.
  struct CacheUse {
    const Tensor* positions;
    int64_t span;
    const Tensor* length = nullptr;
  };
  Tensor Logits(const Tensor& tokens, const Tensor& positions, const CacheUse* cache);
  Tensor Block(Layer& l, const Tensor& x, const Tensor& positions, const CacheUse* cache);
  Tensor Attention(Layer& l, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& positions,
                   const CacheUse* cache);
  static Layer TakeLayer(nn::StateDict& sd, const LlmConfig& c, int64_t index, int64_t context);
  Tensor Rotate(const Tensor& x, const Tensor& positions) const;
  int64_t Bucket(int64_t end) const;
  void CheckFits(const std::vector<int>& tokens) const;

  LlmConfig config_;
  int64_t context_;
  RopeTables rope_;
  Tensor embed_;
  nn::RMSNorm norm_;
  Tensor head_;
  std::vector<Layer> layers_;
  int64_t pos_ = 0;
  Variable position_;            // a step's position, [0, context)
  std::unique_ptr<Jit> step_;    // the decode step, one capture for every position
};

}  // namespace tg::apps

#endif  // TG_APPS_LLM_MODEL_H_
