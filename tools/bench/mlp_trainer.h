// mlp_trainer.h: W5's training step (MLP 784->512->512->10, batch 128, cross-entropy on random
// labels, backward, Adam lr 1e-3), shared by the W5 benchmark and W8's cold-start child.
// The model's parameters go to the default device: construct under ScopedDefaultDevice(device).
#ifndef TG_TOOLS_BENCH_MLP_TRAINER_H_
#define TG_TOOLS_BENCH_MLP_TRAINER_H_

#include <string>

#include "frontend/jit.h"
#include "frontend/nn/optim.h"
#include "frontend/tg.h"
#include "tools/bench/models.h"

namespace tg::bench {

class MlpTrainer {
 public:
  // Parameters, optimizer state, input and labels are all realized on return (outside any timer).
  explicit MlpTrainer(const std::string& device);
  Tensor Forward() const;  // logits, lazy
  Tensor Step();           // one training step, realized in one schedule with the new state; returns the loss

 private:
  Mlp mlp_;
  nn::Adam adam_;
  Tensor x_, labels_;
};

// The same step (same seed, model, data, Adam hyper-parameters) under tg::Jit: the third Step() on
// replays the kernels captured by the second. Not copyable or movable: the jitted function points at this.
class JitMlpTrainer {
 public:
  explicit JitMlpTrainer(const std::string& device);
  JitMlpTrainer(const JitMlpTrainer&) = delete;
  JitMlpTrainer& operator=(const JitMlpTrainer&) = delete;
  // One training step; returns the loss, realized. The loss is the same buffer on every replay:
  // read it before the next Step() if it must survive.
  Tensor Step();
  size_t captured_kernels() const { return step_.captured_kernels(); }

 private:
  Mlp mlp_;
  nn::Adam adam_;
  Tensor x_, labels_;
  Jit step_;
};

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_MLP_TRAINER_H_
