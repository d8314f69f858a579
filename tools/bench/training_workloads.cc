// W5 (MLP training step) and W6 (transformer block forward + backward), models as the torch peer's.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "frontend/tg.h"
#include "frontend/nn/nn.h"
#include "tools/bench/bench_device.h"
#include "tools/bench/mlp_trainer.h"
#include "tools/bench/models.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

std::string LossLabel(float before, float after) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "loss %.4f -> %.4f", before, after);
  return buf;
}

}  // namespace

void RunMlpTrain(benchmark::State& state, const std::string& device, int warmup) {
  MlpTrainer trainer(device);
  float first_loss = 0;
  bool first = true;
  auto step = [&] {
    Tensor loss = trainer.Step();  // realized inside Step, together with params and Adam state
    SyncDevice(device);
    if (first) first_loss = loss.item<float>(), first = false;  // outside the timer: only the first run
  };
  Timed t = TimeRuns(state, step, warmup);
  // A falling loss is the cheap evidence that the step computes a real gradient and update.
  state.SetLabel(LossLabel(first_loss, trainer.Step().item<float>()));
  Publish(state, "W5_mlp_train", device, t, 1.0 / t.median_s, "steps/s");
}

void RunMlpTrainJit(benchmark::State& state, const std::string& device, int warmup) {
  JitMlpTrainer trainer(device);
  float first_loss = 0;
  bool first = true;
  auto step = [&] {
    Tensor loss = trainer.Step();  // call 1 runs, call 2 captures (both untimed: first run, warm-up), then replays
    SyncDevice(device);
    if (first) first_loss = loss.item<float>(), first = false;
  };
  Timed t = TimeRuns(state, step, std::max(warmup, 3));  // timed runs must all be replays
  state.SetLabel(LossLabel(first_loss, trainer.Step().item<float>()) + ", " +
                 std::to_string(trainer.captured_kernels()) + " kernels replayed");
  Publish(state, "W5_mlp_train_jit", device, t, 1.0 / t.median_s, "steps/s");
}

void RunBlockFwdBwd(benchmark::State& state, const std::string& device, int warmup) {
  constexpr int64_t kB = 8, kT = 128, kD = 256, kHeads = 4, kFF = 1024;
  Tensor::manual_seed(0);
  Block block(kD, kHeads, kFF);
  Tensor x = Tensor::randn({kB, kT, kD}, dtypes::float32, device).realize();
  std::vector<Tensor> params = nn::parameters(block);
  std::optional<Tensor> last_loss;
  auto fwd_bwd = [&] {
    Tensor loss = block(x).mean();
    std::vector<Tensor> outs = loss.gradient(params);  // every parameter's gradient, as torch's backward()
    outs.push_back(loss);
    Tensor::realize_all(outs);
    SyncDevice(device);
    last_loss = loss;
  };
  Timed t = TimeRuns(state, fwd_bwd, warmup);
  state.SetLabel("loss " + std::to_string(last_loss->item<float>()));
  Publish(state, "W6_transformer_fb", device, t, t.median_s * 1e3, "ms/iter");
}

}  // namespace tg::bench
