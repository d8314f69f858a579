// Data-parallel training's optimizer (what PyTorch's DistributedDataParallel does to
// gradients): wraps any nn::Optimizer and, before its step, replaces every gradient by its mean over the
// ranks, so all ranks apply the same update and their parameters stay bitwise identical. The gradients
// travel as ONE flat float32 buffer per step. The optimizer's float buffers (BatchNorm's running
// statistics) are averaged after the step (sync_buffers, a second, small message): each rank saw other
// data, and the replicas must agree (PyTorch's DDP broadcasts rank 0's instead).
//
// Eagerly:
//   tg::dist::DistributedOptimizer opt(adam);
//   opt.zero_grad(); loss.backward(); opt.step();
// Under tg::Jit, whose captured functions cannot read data, the step is split in two JITs with the
// allreduce between them:
//   tg::Jit backward([&](in) { opt.zero_grad(); loss(in).backward();
//                              return {loss, opt.flat_gradients(), ...opt.buffers()}; });
//   tg::Jit update([&](in) { return opt.schedule_step(in[0]); });
//   auto out = backward({x, y});  update({opt.average(out[1])});  opt.sync_buffers();
#ifndef TG_FRONTEND_DIST_DISTRIBUTED_OPTIMIZER_H_
#define TG_FRONTEND_DIST_DISTRIBUTED_OPTIMIZER_H_

#include <vector>

#include "frontend/nn/optim.h"
#include "frontend/tensor.h"

namespace tg::dist {

class DistributedOptimizer {
 public:
  // |inner| must outlive this wrapper. Call tg::dist::init() first.
  explicit DistributedOptimizer(nn::Optimizer& inner);

  void zero_grad() { inner_.zero_grad(); }
  // Averages the gradients over the ranks, runs the inner optimizer's step, then sync_buffers().
  void step();
  // Replaces the float buffers' values by their mean over the ranks (in place, realized now).
  void sync_buffers();

  // Every trainable parameter's gradient, flattened and cast to float32: one lazy (flat_size(),) tensor.
  // tg::Error when a parameter has no gradient.
  Tensor flat_gradients() const;
  // The ranks' mean of |flat|, as a new tensor on |flat|'s device: NCCL on the device when the backend
  // picks it (collectives.h), else MPI through host memory. |flat| itself is unchanged.
  Tensor average(const Tensor& flat) const;
  // Gives each parameter its slice of |averaged| as gradient and returns the inner optimizer's
  // schedule_step(): the tensors to realize (for a JIT).
  std::vector<Tensor> schedule_step(const Tensor& averaged);

  // The optimizer's tensors that take no gradient (running statistics, counters): a JIT that runs the
  // forward pass returns them so their in-place updates are realized.
  const std::vector<Tensor>& buffers() const { return buffers_; }
  // The tensors every rank must hold identically: trainable parameters, then every buffer.
  std::vector<Tensor> replicated() const;
  int64_t flat_size() const { return flat_size_; }
  nn::Optimizer& inner() { return inner_; }

 private:
  nn::Optimizer& inner_;
  std::vector<Tensor> trainable_, buffers_, synced_buffers_;  // synced: the float buffers
  int64_t flat_size_ = 0;
};

}  // namespace tg::dist

#endif  // TG_FRONTEND_DIST_DISTRIBUTED_OPTIMIZER_H_
