// W1-W4 and W7 (plain and replayed by tg::Jit): one op (or one fused expression) on random normal fp32 inputs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/jit.h"
#include "frontend/tg.h"
#include "ir/error.h"
#include "tools/bench/bench_device.h"
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
  Timed t = TimeRuns(state, [&] { RealizeAndWait(x.conv2d(w, std::nullopt, 1, 1, 1, /*padding=*/1), device); }, warmup);
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

void RunDispatchJit(benchmark::State& state, const std::string& device, int warmup) {
  constexpr int kOps = 1000;
  Jit add_one([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] + 1}; });
  auto fresh_zeros = [&] { return Tensor::zeros({16}, dtypes::float32, device).contiguous().realize(); };
  add_one({fresh_zeros()}), add_one({fresh_zeros()});  // run, then capture: the timed calls all replay
  // Every replay writes the same output buffer, so the chain feeds that buffer back as the next input
  // (the kernel then reads and writes one buffer, fine for an elementwise add).
  Tensor x = fresh_zeros();
  auto chain = [&] {
    x = fresh_zeros();
    for (int i = 0; i < kOps; ++i) x = add_one({x})[0];
    SyncDevice(device);
  };
  Timed t = TimeRuns(state, chain, warmup);
  for (float v : x.to_vector<float>())
    if (v != kOps)
      throw Error("W7_dispatch_jit: the replayed chain gave " + std::to_string(v) + ", expected " +
                  std::to_string(kOps) + "; the JIT replay is wrong");
  state.SetLabel(std::to_string(add_one.captured_kernels()) + " kernel(s) replayed per op");
  Publish(state, "W7_dispatch_jit", device, t, t.median_s / kOps * 1e6, "us/op");
}

}  // namespace tg::bench
