// apps/llm_sampler.h, in HF generate()'s order: repetition penalty, greedy or temperature, top-k, top-p.
#include "apps/llm_sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "ir/error.h"

namespace tg::apps {

Sampler::Sampler(const SamplingOptions& options) : options_(options), rng_(options.seed) {
  if (!(options.temperature >= 0)) throw Error("--temperature must be >= 0 (0 = greedy), not " + std::to_string(options.temperature));
  if (options.top_k < 0) throw Error("--top_k must be >= 0 (0 = no limit), not " + std::to_string(options.top_k));
  if (!(options.top_p > 0 && options.top_p <= 1)) throw Error("--top_p must be in (0, 1], not " + std::to_string(options.top_p));
  if (!(options.repetition_penalty > 0))
    throw Error("--repetition_penalty must be > 0 (1 = none), not " + std::to_string(options.repetition_penalty));
}

int Sampler::Next(std::vector<float> logits, const std::vector<int>& seen) {
  if (logits.empty()) throw Error("llm sampler: no logits");
  if (options_.repetition_penalty != 1.0) {
    std::vector<bool> done(logits.size());
    for (int id : seen) {
      if (id < 0 || static_cast<size_t>(id) >= logits.size() || done[id]) continue;
      done[id] = true;
      float& l = logits[id];
      l = l > 0 ? static_cast<float>(l / options_.repetition_penalty) : static_cast<float>(l * options_.repetition_penalty);
    }
  }
  if (options_.temperature == 0) return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  std::vector<int> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  size_t keep = options_.top_k > 0 ? std::min<size_t>(options_.top_k, order.size()) : order.size();
  std::vector<double> p(keep);
  double total = 0;
  for (size_t i = 0; i < keep; ++i) total += p[i] = std::exp((logits[order[i]] - logits[order[0]]) / options_.temperature);
  double mass = 0;
  size_t nucleus = 0;
  while (nucleus < keep && (nucleus == 0 || mass < options_.top_p * total)) mass += p[nucleus++];
  return order[std::discrete_distribution<size_t>(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(nucleus))(rng_)];
}

}  // namespace tg::apps
