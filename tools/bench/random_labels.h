// random_labels.h: a training workload's fixed batch of class labels, uniform over [0, classes), from a
// seeded std::mt19937 so a run's loss is the same every time; realized on |device|.
#ifndef TG_TOOLS_BENCH_RANDOM_LABELS_H_
#define TG_TOOLS_BENCH_RANDOM_LABELS_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "frontend/tg.h"

namespace tg::bench {

inline Tensor RandomLabels(int64_t n, int32_t classes, unsigned seed, const std::string& device) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int32_t> cls(0, classes - 1);
  std::vector<int32_t> y(n);
  for (int32_t& v : y) v = cls(gen);
  return Tensor::from_vector(y, Shape{n}, device).realize();
}

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_RANDOM_LABELS_H_
