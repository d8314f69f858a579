// cache_probe: runs a small fixed program (matmul, bias, relu, row sums) on CPU and prints its
// result and how the CPU device got its programs, for second_run_test's two processes.
#include <cstdio>
#include <vector>

#include "frontend/tg.h"
#include "runtime/device_registry.h"

int main() {
  std::vector<float> a(24 * 16), b(16 * 32), bias(32);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.25f * static_cast<float>(i % 3);
  tg::Tensor x = tg::Tensor::from_vector<float>(a, tg::Shape{24, 16}, "CPU");
  tg::Tensor w = tg::Tensor::from_vector<float>(b, tg::Shape{16, 32}, "CPU");
  tg::Tensor c = tg::Tensor::from_vector<float>(bias, tg::Shape{32}, "CPU");
  std::vector<float> out = (x.matmul(w) + c).relu().sum({1}).to_vector<float>();
  double total = 0;
  for (float v : out) total += v;
  const auto& counters = tg::runtime::DeviceRegistry::Global().GetDevice("CPU").value()->program_cache().counters();
  std::printf("compiles=%llu disk_loads=%llu total=%.4f\n", static_cast<unsigned long long>(counters.compiles.load()),
              static_cast<unsigned long long>(counters.disk_loads.load()), total);
  return 0;
}
