// tg::Training: the RAII scope of tinygrad's Tensor.training / TRAINING context. While one lives,
// dropout drops, BatchNorm uses and updates batch statistics, and optimizers may step (docs/architecture.md).
#ifndef TG_FRONTEND_NN_TRAINING_H_
#define TG_FRONTEND_NN_TRAINING_H_

#include "frontend/tensor.h"

namespace tg {

// `tg::Training on;` turns training mode on until the end of the scope; `tg::Training off(false);`
// turns it off. The previous mode comes back on destruction, so scopes nest. The flag is the global
// one of Tensor::set_training / Tensor::training(), shared by every thread.
class [[nodiscard]] Training {
 public:
  explicit Training(bool on = true) : previous_(Tensor::training()) { Tensor::set_training(on); }
  ~Training() { Tensor::set_training(previous_); }
  Training(const Training&) = delete;
  Training& operator=(const Training&) = delete;

 private:
  bool previous_;
};

}  // namespace tg

#endif  // TG_FRONTEND_NN_TRAINING_H_
