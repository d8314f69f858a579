// tg::nn optimizers: SGD, LARS, Adam, AdamW, LAMB, ported from tinygrad's nn/optim.py (SGD is LARS without
// the trust ratio; Adam and AdamW are LAMB without it). step() is one schedule (docs/architecture.md) for every update.
#ifndef TG_FRONTEND_NN_OPTIM_H_
#define TG_FRONTEND_NN_OPTIM_H_

#include <vector>

#include "frontend/tensor.h"

namespace tg::nn {

// Holds handles of the parameters it updates (sharing state with the model's members) and its own
// state tensors (momentum, moments). Usage, with a loss computed from the model:
//   tg::nn::Adam opt(tg::nn::parameters(model), 1e-3);
//   { tg::Training on; opt.zero_grad(); loss.backward(); opt.step(); }
// Tensors passed in that do not require grad (BatchNorm's running statistics, via nn::get_parameters)
// are not updated but realized with each step, so their lazy updates do not pile up.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  void zero_grad();  // forgets every parameter's gradient (the next backward() starts from zero)
  // Computes every new parameter and state value lazily and realizes them all in one schedule. Needs
  // training mode (tg::Training) and a gradient on every parameter; tg::Error otherwise.
  void step();
  // step() without the realize: assigns the new values and returns the tensors to realize (for a JIT).
  std::vector<Tensor> schedule_step();

  // The learning rate lives in a one-element float32 buffer (lr) that kernels read, so changing it
  // recompiles nothing. set_lr writes the value into that same buffer.
  void set_lr(double lr);
  double get_lr() const { return lr_value_; }
  const std::vector<Tensor>& params() const { return params_; }
  // The tensors given that take no gradient (running statistics): realized with each step, not updated.
  const std::vector<Tensor>& buffers() const { return buffers_; }

  Tensor lr;  // shape (1,), float32

 protected:
  Optimizer(const std::vector<Tensor>& params, double lr, const char* name);
  // The amount to subtract from each parameter, given its gradient. Assigns the optimizer's state
  // tensors, which state() then returns so the step realizes them too.
  virtual std::vector<Tensor> updates(const std::vector<Tensor>& grads) = 0;
  virtual std::vector<Tensor> state() const = 0;
  Tensor lr_scalar() const { return lr.reshape({}); }  // 0-D, so 0-D parameters keep their shape
  std::vector<Tensor> zeros_like_params() const;       // float32 state, one per parameter

  std::vector<Tensor> params_, buffers_;
  const char* name_;

 private:
  double lr_value_;
};

// Layer-wise Adaptive Rate Scaling (arXiv:1708.03888): SGD whose step is scaled per tensor by the trust
// ratio tcoef * |w| / (|g| + weight_decay |w|). |classic| applies lr before the momentum buffer.
class LARS : public Optimizer {
 public:
  explicit LARS(const std::vector<Tensor>& params, double lr = 0.001, double momentum = 0.9,
                double weight_decay = 1e-4, bool nesterov = false, bool classic = true, double tcoef = 0.001);
  double momentum, weight_decay, tcoef;
  bool nesterov, classic;

 protected:
  LARS(const std::vector<Tensor>& params, double lr, double momentum, double weight_decay, bool nesterov,
       bool classic, double tcoef, const char* name);
  std::vector<Tensor> updates(const std::vector<Tensor>& grads) override;
  std::vector<Tensor> state() const override { return b_; }

 private:
  std::vector<Tensor> b_;  // momentum buffers (empty without momentum)
};

// PyTorch's SGD: weight decay added to the gradient, then momentum (optionally Nesterov), then lr.
class SGD : public LARS {
 public:
  explicit SGD(const std::vector<Tensor>& params, double lr = 0.001, double momentum = 0.0, double weight_decay = 0.0,
               bool nesterov = false, bool classic = false)
      : LARS(params, lr, momentum, weight_decay, nesterov, classic, 0.0, "SGD") {}
};

// LAMB (arXiv:1904.00962): Adam whose step (plus decoupled weight decay) is scaled per tensor by
// |w| / |step|. With |adam| the ratio is 1: AdamW, and Adam when weight_decay is 0 too.
class LAMB : public Optimizer {
 public:
  explicit LAMB(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999,
                double eps = 1e-6, double weight_decay = 0.0, bool adam = false);
  double b1, b2, eps, weight_decay;
  bool adam;

 protected:
  LAMB(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps, double weight_decay, bool adam,
       const char* name);
  std::vector<Tensor> updates(const std::vector<Tensor>& grads) override;
  std::vector<Tensor> state() const override;

 private:
  Tensor b1_t_, b2_t_;          // b1^t and b2^t, (1,) float32: the bias corrections
  std::vector<Tensor> m_, v_;   // first and second moments
};

class Adam : public LAMB {
 public:
  explicit Adam(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999,
                double eps = 1e-8)
      : LAMB(params, lr, b1, b2, eps, 0.0, true, "Adam") {}
};

// Adam with decoupled weight decay (arXiv:1711.05101): p -= lr * (adam_step + weight_decay * p).
class AdamW : public LAMB {
 public:
  explicit AdamW(const std::vector<Tensor>& params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999,
                 double eps = 1e-8, double weight_decay = 0.01)
      : LAMB(params, lr, b1, b2, eps, weight_decay, true, "AdamW") {}
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_OPTIM_H_
