// Tensor autograd: leaves that require grad, backward() and gradient() over frontend/gradient.h.
#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "frontend/gradient.h"
#include "frontend/tensor_state.h"

namespace tg {
namespace {

// Leaves that require grad, found by backward() when they appear in the loss graph (tinygrad
// walks all live tensors the same way). Weak, so a dropped parameter is simply forgotten.
class LeafRegistry {
 public:
  static LeafRegistry& Global() {
    static LeafRegistry* registry = new LeafRegistry();
    return *registry;
  }
  void Add(const std::shared_ptr<Tensor::State>& state) {
    std::lock_guard<std::mutex> lock(mu_);
    leaves_.push_back(state);
  }
  std::vector<std::shared_ptr<Tensor::State>> Live() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<Tensor::State>> live;
    std::vector<std::weak_ptr<Tensor::State>> kept;
    for (auto& weak : leaves_)
      if (auto s = weak.lock(); s && s->requires_grad) live.push_back(s), kept.push_back(weak);
    leaves_ = std::move(kept);
    return live;
  }

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<Tensor::State>> leaves_;
};

}  // namespace

Tensor& Tensor::requires_grad(bool on) {
  if (on && !dtype().is_float())
    throw Error("requires_grad: only float tensors take gradients; this one is " + dtype().name() +
                " (cast it first: .cast(tg::dtypes::float32))");
  if (on && !state_->requires_grad) LeafRegistry::Global().Add(state_);
  state_->requires_grad = on;
  return *this;
}

bool Tensor::requires_grad() const { return state_->requires_grad; }
bool Tensor::has_grad() const { return state_->grad != nullptr; }

Tensor Tensor::grad() const {
  if (!state_->grad)
    throw Error("grad: this tensor has no gradient yet; mark it with requires_grad(true) and call backward() on a "
                "loss that depends on it");
  Tensor g = *this;
  g.state_ = state_->grad;
  return g;
}

void Tensor::set_grad(const Tensor& grad) {
  if (grad.shape() != shape())
    throw Error("set_grad: gradient shape " + ShapeString(grad.shape()) + " differs from the tensor's " +
                ShapeString(shape()));
  state_->grad = grad.state_;
}

void Tensor::clear_grad() { state_->grad.reset(); }

Tensor Tensor::detach() const { return like(UOp::Make(Ops::kDetach, dtype(), {uop()})); }

std::vector<Tensor> Tensor::gradient_impl(const std::vector<Tensor>& targets, const Tensor& seed,
                                          const char* op) const {
  if (!dtype().is_float())
    throw Error(std::string(op) + ": cannot differentiate a " + dtype().name() + " tensor; only floats have gradients");
  if (seed.shape() != shape())
    throw Error(std::string(op) + ": the gradient has shape " + ShapeString(seed.shape()) + " but the tensor has " +
                ShapeString(shape()));
  std::vector<UOpRef> target_uops;
  for (const Tensor& t : targets) {
    if (!t.dtype().is_float())
      throw Error(std::string(op) + ": a " + t.dtype().name() + " target cannot have a gradient; only floats can");
    target_uops.push_back(t.uop());
  }
  auto grads = ComputeGradient(uop(), seed.cast(dtype()).uop(), target_uops);
  std::vector<Tensor> out;
  for (const Tensor& t : targets) {
    auto it = grads.find(t.uop().get());
    if (it == grads.end()) out.push_back(Tensor::zeros(t.shape(), t.dtype(), t.device()));
    else if (t.is_sharded()) out.push_back(t.like(it->second));
    else out.push_back(t.like(GradientOnDevice(it->second, t.device())));  // a constants leaf behind to()
  }
  return out;
}

std::vector<Tensor> Tensor::gradient(const std::vector<Tensor>& targets) const {
  if (numel() != 1)
    throw Error("gradient: the tensor has shape " + ShapeString(shape()) +
                "; only a one-element tensor has an implicit gradient (pass one shaped like it)");
  return gradient_impl(targets, Tensor::ones(shape(), dtype(), device()), "gradient");
}

std::vector<Tensor> Tensor::gradient(const std::vector<Tensor>& targets, const Tensor& gradient) const {
  return gradient_impl(targets, gradient, "gradient");
}

void Tensor::backward() {
  if (numel() != 1)
    throw Error("backward: the loss has shape " + ShapeString(shape()) +
                "; call backward() on a one-element tensor (e.g. .sum() or .mean()) or pass a gradient");
  backward(Tensor::ones(shape(), dtype(), device()));
}

void Tensor::backward(const Tensor& gradient) {
  absl::flat_hash_set<const UOp*> in_graph;
  for (const UOpRef& u : uop()->toposort()) in_graph.insert(u.get());
  std::vector<Tensor> leaves;
  for (auto& state : LeafRegistry::Global().Live()) {
    if (!in_graph.contains(state->uop.get())) continue;
    Tensor leaf = *this;
    leaf.state_ = state;
    leaves.push_back(leaf);
  }
  if (leaves.empty()) return;
  std::vector<Tensor> grads = gradient_impl(leaves, gradient, "backward");
  for (size_t i = 0; i < leaves.size(); ++i) {
    Tensor& leaf = leaves[i];
    leaf.state_->grad = leaf.has_grad() ? (leaf.grad() + grads[i]).state_ : grads[i].state_;
  }
}

}  // namespace tg
