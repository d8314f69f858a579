// The small model and data the 2-rank training tests share (dist_mpi_test over MPI, nccl_mpi_test over
// the stub NCCL): a Linear-BatchNorm-Linear net, a batch of its own per rank and step, and the
// data-parallel step under tg::Jit, split around the gradient allreduce.
#ifndef TG_TESTS_DIST_SMALL_NET_H_
#define TG_TESTS_DIST_SMALL_NET_H_

#include <utility>
#include <vector>

#include "frontend/dist/dist.h"
#include "frontend/nn/nn.h"
#include "frontend/tg.h"

namespace tg::testing {

struct SmallNet {
  SmallNet() : l1(6, 16), bn(16), l2(16, 3) {}
  Tensor operator()(const Tensor& x) { return l2(bn(l1(x)).relu()); }
  void visit(nn::StateVisitor& v) { v("l1", l1), v("bn", bn), v("l2", l2); }
  nn::Linear l1;
  nn::BatchNorm bn;
  nn::Linear l2;
};

// Rank |rank|'s batch at |step|: different on every rank, the same on every run.
inline std::pair<Tensor, Tensor> RankBatch(int rank, int step) {
  Tensor::manual_seed(1000 + 17 * rank + step);
  return {Tensor::randn({8, 6}), Tensor::randint({8}, 0, 3)};
}

// A captured JIT cannot read data, so the step is two JITs with the allreduce between them:
// backward({x, y}) -> {loss, opt.flat_gradients(), running statistics...}, then
// update({opt.average(flat)}) -> the optimizer's step.
struct SplitJitStep {
  SplitJitStep(SmallNet& net, dist::DistributedOptimizer& opt)
      : backward([&net, &opt](const std::vector<Tensor>& in) {
          Training on;
          opt.zero_grad();
          Tensor loss = net(in[0]).sparse_categorical_crossentropy(in[1]);
          loss.backward();
          std::vector<Tensor> out = {loss, opt.flat_gradients()};
          out.insert(out.end(), opt.buffers().begin(), opt.buffers().end());
          return out;
        }),
        update([&opt](const std::vector<Tensor>& in) {
          Training on;
          return opt.schedule_step(in[0]);
        }) {}
  Jit backward, update;
};

}  // namespace tg::testing

#endif  // TG_TESTS_DIST_SMALL_NET_H_
