// A LLaMA-family model from a GGUF file (llama.cpp's format): the LlmConfig its metadata describes and its
// tensors under the Hugging Face names apps/llm_model.h takes, so one decoder runs both formats. Quantized
// tensors (Q8_0, Q4_0, Q4_K, Q6_K) stay as their blocks on the device, each weight being the lazy
// nn::ggml_dequantize of them that the matmuls using it dequantize inside their kernels (docs/gguf.md).
// A layer's Q, K and V quantized in one type are one weight, self_attn.qkv_proj, over their blocks joined
// in one buffer, so a one-token step's one matmul for the three reads one buffer.
// README.md's Apps section runs it with `//apps:llm -- --model=FILE.gguf`.
#ifndef TG_APPS_LLM_GGUF_H_
#define TG_APPS_LLM_GGUF_H_

#include <string>
#include <string_view>

#include "apps/llm_config.h"
#include "frontend/nn/gguf.h"
#include "frontend/nn/state.h"

namespace tg::apps {

struct LlmGguf {
  LlmConfig config;
  nn::StateDict weights;  // HF names (model.layers.N.self_attn.q_proj.weight, or qkv_proj ...), for LlmModel
  nn::GGUFHeader header;  // the metadata (the tokenizer's too) and the tensor table
};

// The model in |path| (a .gguf file, or the first part of a split one, PREFIX-00001-of-0000N.gguf).
// Architectures "llama" (mistral files use it too) and "qwen2". The config comes from
// {arch}.embedding_length, block_count, feed_forward_length, attention.head_count, head_count_kv,
// attention.layer_norm_rms_epsilon, context_length, rope.freq_base, attention.key_length and
// rope.scaling.type/factor (none or linear) or the rope_freqs.weight tensor (llama3's); the vocabulary is token_embd's rows; the LM head is tied when
// output.weight is absent; BOS/EOS come from tokenizer.ggml.bos_token_id/eos_token_id. llama.cpp's
// converter permutes the rows of Q and K (and their biases) of "llama" models into the pairs of ggml's
// interleaved rotary embedding; those rows are put back in HF's half-split order here, lazily (a view: for
// quantized weights whole blocks move, as each block lies along one row). When a layer's attn_q, attn_k
// and attn_v are quantized in one type, their blocks are concatenated (rows of Q, then K, then V) and
// stored once on |device|, the weight model.layers.N.self_attn.qkv_proj.weight standing for the three;
// otherwise they keep their three names. Unquantized tensors are on the CPU (LlmModel copies them to the
// device in their dtype), blocks on |device| ("" = the default device).
// tg::Error, naming the key or tensor and what is allowed, for an unknown architecture, a missing or
// non-positive metadata value, heads that do not divide, an unsupported rope scaling, and a tensor that is
// missing or of the wrong shape; nn::gguf_load's for a malformed file.
LlmGguf LoadLlmGguf(const std::string& path, std::string_view device = "");

// Whether |path| names a GGUF file (ends in .gguf), as apps/llm.cc tells it from a model folder.
bool IsGgufPath(const std::string& path);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_GGUF_H_
