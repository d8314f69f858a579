// tg::nn reflection: how a model lists its tensors, so parameters(), get_state_dict() and load_state_dict()
// work on any struct of layers. The front end's tg::nn; nothing here runs kernels.
//
// A model is any struct with a `void visit(tg::nn::StateVisitor& v)` member that names its members,
// in the order tinygrad's get_state_dict would walk them:
//
//   struct Net {
//     tg::nn::Conv2d conv{1, 8, 3};
//     std::vector<tg::nn::Linear> layers{{8, 16}, {16, 10}};
//     tg::Tensor scale = tg::Tensor::ones({10});
//     void visit(tg::nn::StateVisitor& v) { v("conv", conv); v("layers", layers); v("scale", scale); }
//     tg::Tensor operator()(const tg::Tensor& x) { ... }
//   };
//   Net net;
//   tg::nn::named_parameters(net);  // "conv.weight", "conv.bias", "layers.0.weight", ..., "scale"
//
// Members may be tensors, std::optional<Tensor> (absent ones are skipped), anything with visit(), and
// std::vector / std::array of those (named by index). A tensor counts as a trainable parameter when it
// requires grad (layers mark their weights; BatchNorm's running statistics do not).
#ifndef TG_FRONTEND_NN_MODULE_H_
#define TG_FRONTEND_NN_MODULE_H_

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/tensor.h"

namespace tg::nn {

class StateVisitor;

// Anything whose state a StateVisitor can walk.
template <class M>
concept Visitable = requires(M& m, StateVisitor& v) { m.visit(v); };

// Walks a model's tensors with dotted names ("layers.0.weight"), calling one callback per tensor.
class StateVisitor {
 public:
  using Callback = std::function<void(const std::string& name, Tensor& tensor)>;
  explicit StateVisitor(Callback callback) : callback_(std::move(callback)) {}

  void operator()(std::string_view name, Tensor& tensor) { callback_(Join(name), tensor); }
  void operator()(std::string_view name, std::optional<Tensor>& tensor) {
    if (tensor) (*this)(name, *tensor);
  }
  template <Visitable M>
  void operator()(std::string_view name, M& member) {
    std::string saved = prefix_;
    prefix_ = Join(name) + ".";
    member.visit(*this);
    prefix_ = std::move(saved);
  }
  template <class T>
  void operator()(std::string_view name, std::vector<T>& items) {
    for (size_t i = 0; i < items.size(); ++i) (*this)(Join(name, i), items[i]);
  }
  template <class T, size_t N>
  void operator()(std::string_view name, std::array<T, N>& items) {
    for (size_t i = 0; i < N; ++i) (*this)(Join(name, i), items[i]);
  }

 private:
  std::string Join(std::string_view name) const { return prefix_ + std::string(name); }
  std::string Join(std::string_view name, size_t i) const { return std::string(name) + "." + std::to_string(i); }

  Callback callback_;
  std::string prefix_;
};

// Every tensor of |model| in visit order, with its dotted name (tinygrad's get_state_dict, ordered).
template <Visitable M>
std::vector<std::pair<std::string, Tensor>> named_tensors(M& model) {
  std::vector<std::pair<std::string, Tensor>> out;
  StateVisitor v([&](const std::string& name, Tensor& t) { out.emplace_back(name, t); });
  model.visit(v);
  return out;
}

// The trainable tensors (those that require grad) with their names, in visit order.
template <Visitable M>
std::vector<std::pair<std::string, Tensor>> named_parameters(M& model) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& [name, t] : named_tensors(model))
    if (std::as_const(t).requires_grad()) out.emplace_back(name, t);  // non-const requires_grad() is the setter
  return out;
}

// The trainable tensors: what an optimizer updates. Handles share state with the model's members.
template <Visitable M>
std::vector<Tensor> parameters(M& model) {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_parameters(model)) out.push_back(t);
  return out;
}

// Every tensor, trainable or not (tinygrad's get_parameters). Give these to an optimizer to have the
// non-trainable ones (BatchNorm's running statistics) realized in the same schedule as each step.
template <Visitable M>
std::vector<Tensor> get_parameters(M& model) {
  std::vector<Tensor> out;
  for (auto& [name, t] : named_tensors(model)) out.push_back(t);
  return out;
}

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_MODULE_H_
