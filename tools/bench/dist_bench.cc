// W5 data-parallel: run it alone (1 rank) and under `mpirun -np 2` (2 ranks):
//   bazel-bin/tools/bench/dist_bench
//   tests/dist/mpirun.sh 2 bazel-bin/tools/bench/dist_bench
// Prints, on rank 0: the data-parallel MLP training steps/s (784-256-10, Adam, per-rank batch --batch,
// the two-JIT step of tg::dist::DistributedOptimizer) and allreduce bandwidth for 1-64 MiB float32
// messages (algbw = bytes / time; busbw = algbw * 2(n-1)/n, as nccl-tests reports). Scaling efficiency =
// steps/s at N ranks / steps/s at 1 rank (per-rank batch fixed: weak scaling). tools/bench/ddp_gloo_bench.py
// measures the same for PyTorch DDP with gloo.
#include <chrono>
#include <cstdio>
#include <vector>

#include "frontend/dist/dist.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"

namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Mlp {
  Mlp() : l1(784, 256), l2(256, 10) {}
  tg::Tensor operator()(const tg::Tensor& x) { return l2(l1(x).relu()); }
  void visit(tg::nn::StateVisitor& v) { v("l1", l1), v("l2", l2); }
  tg::nn::Linear l1, l2;
};

double TrainingStepsPerSecond(int64_t batch, int steps) {
  tg::Tensor::manual_seed(1);
  Mlp net;
  tg::dist::broadcast(tg::nn::get_parameters(net));
  tg::nn::Adam adam(tg::nn::get_parameters(net), 1e-3);
  tg::dist::DistributedOptimizer opt(adam);
  tg::Jit backward([&](const std::vector<tg::Tensor>& in) {
    tg::Training on;
    opt.zero_grad();
    tg::Tensor loss = net(in[0]).sparse_categorical_crossentropy(in[1]);
    loss.backward();
    return std::vector<tg::Tensor>{loss, opt.flat_gradients()};
  });
  tg::Jit update([&](const std::vector<tg::Tensor>& in) {
    tg::Training on;
    return opt.schedule_step(in[0]);
  });
  tg::Tensor::manual_seed(100 + tg::dist::rank());
  tg::Tensor x = tg::Tensor::randn({batch, 784}).realize(), y = tg::Tensor::randint({batch}, 0, 10).realize();
  auto step = [&] {
    std::vector<tg::Tensor> out = backward({x, y});
    update({opt.average(out[1])});
  };
  for (int i = 0; i < 3; ++i) step();  // run, capture, first replay
  tg::dist::barrier();
  auto start = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  tg::dist::barrier();
  return steps / Since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const tg::dist::WorldInfo& world = tg::dist::init();
  int64_t batch = argc > 1 ? std::atoi(argv[1]) : 128;
  double sps = TrainingStepsPerSecond(batch, 30);
  if (world.rank == 0)
    std::printf("W5 data-parallel: %d rank(s), MLP 784-256-10 Adam, per-rank batch %lld: %.2f steps/s, %.0f samples/s\n",
                world.size, static_cast<long long>(batch), sps, sps * batch * world.size);
  if (world.size == 1) return 0;  // an allreduce over one rank moves nothing
  for (int64_t mib = 1; mib <= 64; mib *= 2) {
    std::vector<float> buffer(mib << 18, 1.0f);
    tg::dist::allreduce_host(buffer.data(), static_cast<int64_t>(buffer.size()), tg::dtypes::float32);  // warm-up
    int reps = mib <= 8 ? 10 : 4;
    tg::dist::barrier();
    auto start = Clock::now();
    for (int r = 0; r < reps; ++r)
      tg::dist::allreduce_host(buffer.data(), static_cast<int64_t>(buffer.size()), tg::dtypes::float32);
    double seconds = Since(start) / reps, bytes = static_cast<double>(mib << 20);
    double algbw = bytes / seconds / 1e9, busbw = algbw * 2.0 * (world.size - 1) / world.size;
    if (world.rank == 0)
      std::printf("allreduce %2lld MiB: %8.2f ms  algbw %6.2f GB/s  busbw %6.2f GB/s\n", static_cast<long long>(mib),
                  seconds * 1e3, algbw, busbw);
  }
  return 0;
}
