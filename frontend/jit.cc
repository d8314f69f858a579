#include "frontend/jit.h"

#include "absl/container/flat_hash_set.h"
#include "compiler/compiler.h"
#include "ir/substitute.h"

namespace tg {
namespace {

std::vector<Tensor> Realized(std::vector<Tensor> tensors) {
  Tensor::realize_all(tensors);
  return tensors;
}

// The buffer views behind a realized input: one, or one per device for a sharded tensor.
std::vector<UOpRef> InputViews(const Tensor& t) {
  return t.uop()->op() == Ops::kMulti ? t.uop()->src() : std::vector<UOpRef>{t.uop()};
}

}  // namespace

Jit::Jit(Function fn) : fn_(std::move(fn)) {}

size_t Jit::captured_kernels() const {
  size_t n = 0;
  for (const auto& item : items_) n += item.kind == compiler::ScheduleItem::Kind::kKernel;
  return n;
}

void Jit::CheckInputs(const std::vector<Tensor>& inputs) const {
  absl::flat_hash_set<const UOp*> seen;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!seen.insert(inputs[i].uop().get()).second)
      throw Error("Jit: input " + std::to_string(i) + " is passed twice; a jitted function takes distinct inputs");
  if (calls_ == 0) return;
  if (inputs.size() != specs_.size())
    throw Error("Jit: called with " + std::to_string(inputs.size()) + " inputs, but it was captured with " +
                std::to_string(specs_.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputSpec& s = specs_[i];
    const Tensor& t = inputs[i];
    if (t.shape() != s.shape || t.dtype() != s.dtype || t.device() != s.device)
      throw Error("Jit: input " + std::to_string(i) + " is " + ShapeString(t.shape()) + " " + t.dtype().name() +
                  " on " + t.device() + ", but the function was captured with " + ShapeString(s.shape) + " " +
                  s.dtype.name() + " on " + s.device + "; make a new Jit for other shapes");
  }
}

std::vector<Tensor> Jit::operator()(const std::vector<Tensor>& inputs) {
  CheckInputs(inputs);
  std::vector<Tensor> ready = Realized(inputs);
  std::vector<Tensor> out = calls_ == 0 ? Run(ready) : calls_ == 1 ? Capture(ready) : Replay(ready);
  ++calls_;
  return out;
}

std::vector<Tensor> Jit::Run(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) specs_.push_back({t.shape(), t.dtype(), t.device()});
  return Realized(fn_(inputs));
}

std::vector<Tensor> Jit::Capture(const std::vector<Tensor>& inputs) {
  compiler::CaptureScope scope;
  outputs_ = Realized(fn_(inputs));
  items_ = scope.items();
  for (const Tensor& t : inputs) input_buffers_.push_back(InputViews(t));
  return outputs_;
}

std::vector<Tensor> Jit::Replay(const std::vector<Tensor>& inputs) {
  NodeMap swap;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<UOpRef> now = InputViews(inputs[i]);
    const std::vector<UOpRef>& captured = input_buffers_[i];
    bool same_layout = now.size() == captured.size();
    for (size_t d = 0; same_layout && d < now.size(); ++d) same_layout = now[d]->shape() == captured[d]->shape();
    if (!same_layout)
      throw Error("Jit: input " + std::to_string(i) + " is sharded differently from the captured call (another "
                  "axis or split); make a new Jit for it");
    for (size_t d = 0; d < now.size(); ++d)
      if (UOpRef old_buffer = compiler::BufferOfView(captured[d]))
        swap[old_buffer.get()] = compiler::BufferOfView(now[d]);
  }
  std::vector<compiler::ScheduleItem> items = items_;
  for (auto& item : items)
    for (UOpRef& b : item.buffers)
      if (auto it = swap.find(b.get()); it != swap.end()) b = it->second;
  compiler::RunItems(items);
  return outputs_;
}

}  // namespace tg
