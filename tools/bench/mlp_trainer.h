// mlp_trainer.h: W5's training step (MLP 784->512->512->10, batch 128, cross-entropy on random
// labels, backward, Adam lr 1e-3), shared by the W5 benchmark and W8's cold-start child.
#ifndef TG_TOOLS_BENCH_MLP_TRAINER_H_
#define TG_TOOLS_BENCH_MLP_TRAINER_H_

#include <string>

#include "frontend/tg.h"
#include "tools/bench/adam.h"
#include "tools/bench/models.h"

namespace tg::bench {

class MlpTrainer {
 public:
  // Parameters, optimizer state, input and labels are all realized on return (outside any timer).
  explicit MlpTrainer(const std::string& device);
  Tensor Forward() const;  // logits, lazy
  Tensor Step();           // one training step, realized together with the new state; returns the loss

 private:
  Mlp mlp_;
  Adam adam_;
  Tensor x_, labels_;
};

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_MLP_TRAINER_H_
