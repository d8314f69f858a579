// Rotary position embeddings of LLaMA-family models: the frequencies (with HF's linear and llama3
// scaling) and the cos/sin tables the decoder (apps/llm_model.h) gathers rows of by position.
#ifndef TG_APPS_LLM_ROPE_H_
#define TG_APPS_LLM_ROPE_H_

#include <cstdint>
#include <vector>

#include "apps/llm_config.h"
#include "frontend/tensor.h"

namespace tg::apps {

// head_dim / 2 inverse frequencies 1 / theta^(2i / head_dim), scaled as |config|.rope_scaling says.
std::vector<double> RopeInverseFrequencies(const LlmConfig& config);

// cos and sin of position * frequency, (positions, head_dim) float32, each frequency twice (the first
// and second halves of a head rotate together: HF's rotate_half layout).
struct RopeTables {
  Tensor cos, sin;
};
RopeTables MakeRopeTables(const LlmConfig& config, int64_t positions);

}  // namespace tg::apps

#endif  // TG_APPS_LLM_ROPE_H_
