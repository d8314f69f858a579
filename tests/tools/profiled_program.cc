// A process for profile_cli_test: a few jitted training steps, then exit, so PROFILE=1's write at exit runs.
#include <cstdio>

#include "tests/tools/profiled_training.h"

int main() {
  std::vector<float> losses = tg::testing_profile::RunProfiledTrainingSteps();
  std::printf("loss %g -> %g\n", losses.front(), losses.back());
  return 0;
}
