// A small tinygrad-cc program for the `tg viz` test: realizes one fused kernel and a reduce, then exits
// with the status --exit=N asks for (0 by default), so the test sees the status passed through.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "frontend/tg.h"

int main(int argc, char** argv) {
  int status = 0;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--exit=", 7) == 0) status = std::atoi(argv[i] + 7);
  tg::Tensor x = tg::Tensor::from_vector<float>({1, -2, 3, -4, 5, -6}, {2, 3});
  std::printf("sum %g\n", (x * 2 + 1).relu().sum().item<float>());
  return status;
}
