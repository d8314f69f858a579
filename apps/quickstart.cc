// quickstart: the first program a tinygrad-cc user runs. Lists the devices the plugins offer,
// then builds a few lazy tensors on the default device, realizes them and prints the results.
//   ./bazelw run //apps:quickstart            (DEBUG=2 adds kernel times, DEBUG=4 the generated C)
#include <cstdio>
#include <string>
#include <vector>

#include "frontend/tg.h"

namespace {

template <class T>
void Print(const char* label, const tg::Tensor& t) {
  std::vector<T> values = t.to_vector<T>();
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  std::printf("%-34s shape %-10s %s\n", label, tg::ShapeString(t.shape()).c_str(), text.c_str());
}

void PrintDevices() {
  std::printf("devices (./bazelw run //tools:tg -- devices shows every plugin tried):\n");
  for (const tg::DeviceDescription& d : tg::available_devices())
    std::printf("  %-8s %s (%s, %u-wide float vectors, %u cores, %.1f GiB)\n", d.name.c_str(),
                d.description.c_str(), d.arch.c_str(), d.vector_width, d.compute_units,
                d.memory_bytes / double(1 << 30));
}

}  // namespace

int main() {
  try {
    PrintDevices();
    tg::Tensor x = tg::Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    tg::Tensor w = tg::Tensor::from_vector<float>({1, 0, -1, 0.5f, 2, 1}, {3, 2});
    std::printf("default device: %s\n\n", x.device().c_str());
    Print<float>("x", x);
    Print<float>("w", w);
    Print<float>("x @ w", x.matmul(w));
    Print<float>("(x * 2 + 1).relu().sum(1)", (x * 2 + 1).relu().sum({1}));
    Print<float>("x.max(0)", x.max({0}));
    Print<float>("x.exp().mean()", x.exp().mean());
    Print<float>("x.transpose().flip(0)", x.transpose().flip({0}));
    Print<float>("x.pad(((0,0),(1,1)))", x.pad({{0, 0}, {1, 1}}));
    Print<bool>("x > 3", x > 3);
    tg::Tensor::manual_seed(0);
    Print<float>("rand(4)", tg::Tensor::rand({4}));
    return 0;
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 1;
  }
}
