// cnn_trainer.h: apps/fashion_mnist.cc's jitted training step (apps/mnist_cnn.h's CNN, batch 128,
// sparse cross-entropy, accuracy, Adam lr 3e-3) on one fixed batch of random images and labels, shared by
// W9 (timed replays) and W8e's cold-start child (the first step of a fresh process).
// The model's parameters go to the default device: construct under ScopedDefaultDevice(device).
#ifndef TG_TOOLS_BENCH_CNN_TRAINER_H_
#define TG_TOOLS_BENCH_CNN_TRAINER_H_

#include <string>
#include <vector>

#include "apps/mnist_cnn.h"
#include "frontend/jit.h"
#include "frontend/nn/optim.h"
#include "frontend/tg.h"

namespace tg::bench {

// Not copyable or movable: the jitted step points at this.
class CnnTrainer {
 public:
  // Parameters, optimizer state, images and labels are all realized on return (outside any timer).
  explicit CnnTrainer(const std::string& device);
  CnnTrainer(const CnnTrainer&) = delete;
  CnnTrainer& operator=(const CnnTrainer&) = delete;

  // One training step: call 1 runs, call 2 captures, later calls replay. Returns the loss, realized; it is
  // the same buffer on every replay, so read it before the next Step() if it must survive.
  Tensor Step();
  size_t captured_kernels() const { return step_.captured_kernels(); }

 private:
  apps::MnistCnn model_;
  nn::Adam adam_;
  Tensor images_, labels_;
  Jit step_;
};

}  // namespace tg::bench

#endif  // TG_TOOLS_BENCH_CNN_TRAINER_H_
