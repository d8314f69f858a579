// tg::nn optimizers: the update rules of tinygrad's nn/optim.py, and the one-schedule step.
#include "frontend/nn/optim.h"

#include <cmath>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "compiler/compiler.h"
#include "runtime/device.h"

namespace tg::nn {
namespace {

// Parameters (require grad) and buffers (do not), each once: a model may list a tensor twice (tied weights).
void Split(const std::vector<Tensor>& tensors, std::vector<Tensor>& params, std::vector<Tensor>& buffers) {
  absl::flat_hash_set<const UOp*> seen;
  for (const Tensor& t : tensors) {
    if (!seen.insert(t.uop().get()).second) continue;
    (t.requires_grad() ? params : buffers).push_back(t);
  }
}

Tensor LrBuffer(double lr, const std::string& device) {
  return Tensor::from_vector(std::vector<float>{static_cast<float>(lr)}, Shape{1}, device);
}

// The L2 norm of |t| as a 0-D tensor.
Tensor Norm(const Tensor& t) { return t.square().sum().sqrt(); }

}  // namespace

Optimizer::Optimizer(const std::vector<Tensor>& params, double lr, const char* name)
    : lr(Tensor::zeros({1})), name_(name), lr_value_(lr) {
  if (!(lr >= 0)) throw Error(std::string(name) + ": the learning rate must be >= 0; got " + std::to_string(lr));
  Split(params, params_, buffers_);
  if (params_.empty())
    throw Error(std::string(name) + ": no trainable parameters (tensors that require grad) were given; pass "
                "tg::nn::parameters(model)");
  for (const Tensor& p : params_)
    if (!p.dtype().is_float()) throw Error(std::string(name) + ": parameters must be float; got " + p.dtype().name());
  this->lr = LrBuffer(lr, params_[0].device());
}

void Optimizer::zero_grad() {
  for (Tensor& p : params_) p.clear_grad();
}

void Optimizer::set_lr(double value) {
  if (!(value >= 0)) throw Error(std::string(name_) + ": the learning rate must be >= 0; got " + std::to_string(value));
  lr.realize();
  float f = static_cast<float>(value);
  // One buffer, or one per device when the parameters are sharded (lr is replicated like them).
  const UOpRef& view = lr.uop();
  std::vector<UOpRef> copies = view->op() == Ops::kMulti ? view->src() : std::vector<UOpRef>{view};
  for (const UOpRef& copy : copies) {
    runtime::Buffer* buffer = compiler::RuntimeBuffer(compiler::BufferOfView(copy));
    // Kernels already queued may still read the old value: let them finish before overwriting it.
    compiler::ThrowIfError(buffer->device().Synchronize());
    compiler::ThrowIfError(buffer->CopyIn(&f, sizeof f));
  }
  lr_value_ = value;
}

std::vector<Tensor> Optimizer::zeros_like_params() const {
  std::vector<Tensor> out;
  for (const Tensor& p : params_) {
    // Uploaded, not a broadcast constant: each state tensor needs a buffer of its own (see init.h).
    std::vector<float> zeros(static_cast<size_t>(p.numel()), 0.0f);
    // A sharded parameter's state is sharded like it (uploaded to its first device, then split).
    out.push_back(Tensor::from_vector(zeros, p.shape(), p.devices()[0]).shard_like(p));
  }
  return out;
}

std::vector<Tensor> Optimizer::schedule_step() {
  if (!Tensor::training())
    throw Error(std::string(name_) + ".step: training mode is off; step inside a `tg::Training on;` scope "
                "(tinygrad's TRAINING=1)");
  std::vector<Tensor> grads;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].has_grad())
      throw Error(std::string(name_) + ".step: parameter " + std::to_string(i) + " " + ShapeString(params_[i].shape()) +
                  " has no gradient; call backward() on a loss that uses it before step()");
    grads.push_back(params_[i].grad());
  }
  std::vector<Tensor> ups = updates(grads);
  for (size_t i = 0; i < params_.size(); ++i)
    params_[i].assign(params_[i].detach() - ups[i].to(params_[i].device()).cast(params_[i].dtype()));
  std::vector<Tensor> out = state();
  out.insert(out.end(), params_.begin(), params_.end());
  out.insert(out.end(), buffers_.begin(), buffers_.end());
  return out;
}

void Optimizer::step() { Tensor::realize_all(schedule_step()); }

LARS::LARS(const std::vector<Tensor>& params, double lr, double momentum, double weight_decay, bool nesterov,
           bool classic, double tcoef)
    : LARS(params, lr, momentum, weight_decay, nesterov, classic, tcoef, "LARS") {}

LARS::LARS(const std::vector<Tensor>& params, double lr, double momentum, double weight_decay, bool nesterov,
           bool classic, double tcoef, const char* name)
    : Optimizer(params, lr, name), momentum(momentum), weight_decay(weight_decay), tcoef(tcoef), nesterov(nesterov),
      classic(classic) {
  if (!(momentum >= 0)) throw Error(std::string(name) + ": momentum must be >= 0; got " + std::to_string(momentum));
  if (!(weight_decay >= 0))
    throw Error(std::string(name) + ": weight_decay must be >= 0; got " + std::to_string(weight_decay));
  if (nesterov && momentum == 0) throw Error(std::string(name) + ": nesterov needs a momentum > 0");
  if (momentum != 0) b_ = zeros_like_params();
}

std::vector<Tensor> LARS::updates(const std::vector<Tensor>& grads) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor w = params_[i].detach(), g = grads[i];
    // Trust ratio; 1 where either norm is 0 (a fresh zero layer must still move).
    Tensor r = Tensor::full({}, 1.0, dtypes::float32, w.device());
    if (tcoef != 0) {
      Tensor r1 = Norm(w), r2 = Norm(g);
      r = (r1 > 0).where((r2 > 0).where(tcoef * r1 / (r2 + weight_decay * r1), 1.0), 1.0);
    }
    if (weight_decay > 0) g = g + weight_decay * w;
    Tensor lr = lr_scalar().to(w.device());
    if (classic) g = g * r * lr;
    if (momentum != 0) {
      b_[i].assign(momentum * b_[i] + g);  // zero on the first step, so no special case
      g = nesterov ? g + momentum * b_[i] : b_[i];
    }
    if (!classic) g = g * r * lr;
    out.push_back(g);
  }
  return out;
}

LAMB::LAMB(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps, double weight_decay,
           bool adam)
    : LAMB(params, lr, b1, b2, eps, weight_decay, adam, "LAMB") {}

LAMB::LAMB(const std::vector<Tensor>& params, double lr, double b1, double b2, double eps, double weight_decay,
           bool adam, const char* name)
    : Optimizer(params, lr, name), b1(b1), b2(b2), eps(eps), weight_decay(weight_decay), adam(adam),
      b1_t_(Tensor::from_vector(std::vector<float>{1.0f}, Shape{1}, params_[0].device())),
      b2_t_(Tensor::from_vector(std::vector<float>{1.0f}, Shape{1}, params_[0].device())),
      m_(zeros_like_params()), v_(zeros_like_params()) {
  if (!(b1 >= 0 && b1 < 1) || !(b2 >= 0 && b2 < 1))
    throw Error(std::string(name) + ": betas must be in [0, 1); got " + std::to_string(b1) + ", " + std::to_string(b2));
  if (!(weight_decay >= 0))
    throw Error(std::string(name) + ": weight_decay must be >= 0; got " + std::to_string(weight_decay));
}

std::vector<Tensor> LAMB::updates(const std::vector<Tensor>& grads) {
  b1_t_.assign(b1_t_ * b1);
  b2_t_.assign(b2_t_ * b2);
  std::vector<Tensor> out;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor w = params_[i].detach(), g = grads[i].to(m_[i].device()).cast(dtypes::float32);
    m_[i].assign(b1 * m_[i] + (1.0 - b1) * g);
    v_[i].assign(b2 * v_[i] + (1.0 - b2) * (g * g));
    Tensor m_hat = m_[i] / (1.0 - b1_t_.reshape({}).to(w.device()));
    Tensor v_hat = v_[i] / (1.0 - b2_t_.reshape({}).to(w.device()));
    Tensor up = m_hat / (v_hat.sqrt() + eps) + weight_decay * w;
    Tensor lr = lr_scalar().to(w.device());
    if (adam) {
      out.push_back(lr * up);
      continue;
    }
    Tensor r1 = Norm(w), r2 = Norm(up);
    out.push_back(lr * (r1 > 0).where((r2 > 0).where(r1 / r2, 1.0), 1.0) * up);
  }
  return out;
}

std::vector<Tensor> LAMB::state() const {
  std::vector<Tensor> out = {b1_t_, b2_t_};
  out.insert(out.end(), m_.begin(), m_.end());
  out.insert(out.end(), v_.begin(), v_.end());
  return out;
}

}  // namespace tg::nn
