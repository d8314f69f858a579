// W1-W4 and W7: one op (or one fused expression) on random normal fp32 inputs.
#include <cstdint>
#include <optional>
#include <string>

#include "frontend/tg.h"
#include "tools/bench/models.h"
#include "tools/bench/timing.h"
#include "tools/bench/workload_fns.h"

namespace tg::bench {
namespace {

Tensor Randn(const Shape& shape, const std::string& device) {
  return Tensor::randn(shape, dtypes::float32, device).realize();
}

// The timed body of the single-output workloads: build the graph from realized inputs, run it, wait.
void RealizeAndWait(Tensor t, const std::string& device) {
  t.realize();
  SyncDevice(device);
}

}  // namespace

void RunMatmul(benchmark::State& state, const std::string& device, int warmup, int64_t n) {
  Tensor::manual_seed(0);
  Tensor a = Randn({n, n}, device), b = Randn({n, n}, device);
  Timed t = TimeRuns(state, [&] { RealizeAndWait(a.matmul(b), device); }, warmup);
  double flop = 2.0 * n * n * n;
  Publish(state, "W1_matmul_" + std::to_string(n), device, t, flop / t.median_s / 1e9, "GFLOP/s");
}

void RunGeluBcast(benchmark::State& state, const std::string& device, int warmup) {
  Tensor::manual_seed(0);
  Tensor x = Randn({4096, 4096}, device), a = Randn({4096}, device), b = Randn({4096}, device);
  Timed t = TimeRuns(state, [&] { RealizeAndWait((x * a + b).gelu("tanh"), device); }, warmup);
  double bytes = 2.0 * x.numel() * 4;  // x in, y out (a and b are noise)
  Publish(state, "W2_gelu_bcast", device, t, bytes / t.median_s / 1e9, "GB/s");
}

void RunSum(benchmark::State& state, const std::string& device, int warmup) {
  Tensor::manual_seed(0);
  Tensor v = Randn({64 * 1024 * 1024}, device);
  Timed t = TimeRuns(state, [&] { RealizeAndWait(v.sum(), device); }, warmup);
  Publish(state, "W3a_sum_64M", device, t, v.numel() * 4.0 / t.median_s / 1e9, "GB/s");
}

void RunSoftmax(benchmark::State& state, const std::string& device, int warmup) {
  Tensor::manual_seed(0);
  Tensor x = Randn({4096, 4096}, device);
  Timed t = TimeRuns(state, [&] { RealizeAndWait(x.softmax(-1), device); }, warmup);
  Publish(state, "W3b_softmax_4096", device, t, 2.0 * x.numel() * 4 / t.median_s / 1e9, "GB/s");
}

void RunConv2d(benchmark::State& state, const std::string& device, int warmup) {
  Tensor::manual_seed(0);
  Tensor x = Randn({8, 64, 56, 56}, device), w = Randn({64, 64, 3, 3}, device);
  Timed t = TimeRuns(state, [&] { RealizeAndWait(Conv2dStride1(x, w, 1), device); }, warmup);
  double flop = 2.0 * 8 * 64 * 64 * 9 * 56 * 56;
  Publish(state, "W4_conv2d", device, t, flop / t.median_s / 1e9, "GFLOP/s");
}

void RunDispatch(benchmark::State& state, const std::string& device, int warmup) {
  constexpr int kOps = 1000;
  // As the peer: a fresh 16-element zeros, then 1000 dependent adds, each realized on its own.
  auto chain = [&] {
    Tensor x = Tensor::zeros({16}, dtypes::float32, device).contiguous().realize();
    for (int i = 0; i < kOps; ++i) x = (x + 1).realize();
    SyncDevice(device);
  };
  Timed t = TimeRuns(state, chain, warmup);
  Publish(state, "W7_dispatch", device, t, t.median_s / kOps * 1e6, "us/op");
}

}  // namespace tg::bench
