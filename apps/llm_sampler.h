// Next-token choice for apps/llm.cc: greedy (temperature 0), or sampling with temperature, top-k,
// top-p (nucleus) and a repetition penalty, reproducible from a seed.
#ifndef TG_APPS_LLM_SAMPLER_H_
#define TG_APPS_LLM_SAMPLER_H_

#include <cstdint>
#include <random>
#include <vector>

namespace tg::apps {

struct SamplingOptions {
  double temperature = 0.0;         // 0 = greedy
  int top_k = 0;                    // 0 = every token
  double top_p = 1.0;               // the smallest set of likeliest tokens whose probability reaches top_p
  double repetition_penalty = 1.0;  // > 1 makes tokens already seen less likely (CTRL's / HF's rule)
  uint64_t seed = 0;
};

class Sampler {
 public:
  // tg::Error for temperature < 0, top_k < 0, top_p outside (0, 1] or repetition_penalty <= 0.
  explicit Sampler(const SamplingOptions& options);
  // The next token given |logits| and the tokens so far (|seen|, for the repetition penalty).
  int Next(std::vector<float> logits, const std::vector<int>& seen);

 private:
  SamplingOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace tg::apps

#endif  // TG_APPS_LLM_SAMPLER_H_
