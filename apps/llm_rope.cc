// apps/llm_rope.h, after HF's modeling_rope_utils (default, linear and llama3 init functions).
#include "apps/llm_rope.h"

#include <cmath>

namespace tg::apps {

std::vector<double> RopeInverseFrequencies(const LlmConfig& config) {
  const int64_t half = config.head_dim / 2;
  const RopeScaling& s = config.rope_scaling;
  std::vector<double> inv(half);
  for (int64_t i = 0; i < half; ++i) {
    // float32 exponent as HF computes it, so the tables agree to rounding
    float exponent = static_cast<float>(2 * i) / static_cast<float>(config.head_dim);
    inv[i] = 1.0 / std::pow(config.rope_theta, static_cast<double>(exponent));
  }
  if (s.kind == RopeScaling::Kind::kLinear) {
    for (double& f : inv) f /= s.factor;
  } else if (s.kind == RopeScaling::Kind::kLlama3) {
    // Long wavelengths are slowed by |factor|, short ones kept, the band between blended smoothly.
    const double old = static_cast<double>(s.original_max_positions);
    const double low_wavelen = old / s.low_freq_factor, high_wavelen = old / s.high_freq_factor;
    for (double& f : inv) {
      double wavelen = 2 * M_PI / f;
      if (wavelen > low_wavelen) {
        f /= s.factor;
      } else if (wavelen >= high_wavelen) {
        double smooth = (old / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        f = (1 - smooth) * f / s.factor + smooth * f;
      }
    }
  }
  for (size_t i = 0; i < s.frequency_divisors.size() && i < inv.size(); ++i) inv[i] /= s.frequency_divisors[i];
  return inv;
}

RopeTables MakeRopeTables(const LlmConfig& config, int64_t positions) {
  std::vector<double> inv = RopeInverseFrequencies(config);
  const int64_t half = static_cast<int64_t>(inv.size()), dim = 2 * half;
  std::vector<float> cos(positions * dim), sin(positions * dim);
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t i = 0; i < half; ++i) {
      float angle = static_cast<float>(p) * static_cast<float>(inv[i]);
      cos[p * dim + i] = cos[p * dim + half + i] = std::cos(angle);
      sin[p * dim + i] = sin[p * dim + half + i] = std::sin(angle);
    }
  }
  return {Tensor::from_vector(cos, Shape{positions, dim}).realize(),
          Tensor::from_vector(sin, Shape{positions, dim}).realize()};
}

}  // namespace tg::apps
