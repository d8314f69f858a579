// adam.h: torch.optim.Adam (betas 0.9/0.999, eps 1e-8, no weight decay) written out in Tensor ops for
// W5, until tg::nn.optim exists. Each step builds the update lazily and realizes the new parameters,
// both moments, the bias-correction powers and the loss in one schedule.
#ifndef TG_TOOLS_BENCH_ADAM_H_
#define TG_TOOLS_BENCH_ADAM_H_

#include <vector>

#include "frontend/tg.h"

namespace tg::bench {

class Adam {
 public:
  Adam(const std::vector<Tensor>& params, double lr, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8);
  // Returns the new parameters (realized) and realizes |loss| with them; |grads| match the params order.
  std::vector<Tensor> Step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads, Tensor& loss);

 private:
  double lr_, b1_, b2_, eps_;
  std::vector<Tensor> m_, v_;
  // b1^t and b2^t live on the device as tensors: a host constant would change every step, give every
  // step a new kernel and recompile (tinygrad keeps them as tensors for the same reason).
  Tensor b1_t_, b2_t_;
};

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_ADAM_H_
