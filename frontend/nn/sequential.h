// tg::nn::Sequential: a type-erased list of layers and functions applied in order, named "0", "1", ...
// in the state dict as a Python list of layers is. A container of tg::nn.
#ifndef TG_FRONTEND_NN_SEQUENTIAL_H_
#define TG_FRONTEND_NN_SEQUENTIAL_H_

#include <concepts>
#include <functional>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "frontend/nn/module.h"

namespace tg::nn {

// Anything callable on one tensor: layers, lambdas, and member functions such as &tg::Tensor::relu.
template <class L>
concept TensorFunction = std::is_invocable_r_v<Tensor, L&, const Tensor&>;

//   tg::nn::Sequential net{tg::nn::Linear(784, 128), &tg::Tensor::relu, tg::nn::Linear(128, 10)};
//   tg::Tensor logits = net(x);
//   net.get<tg::nn::Linear>(0).weight;   // "0.weight" in get_state_dict(net)
// Copies share their layers (and layers share their tensors), like Python references.
class Sequential {
 public:
  Sequential() = default;
  template <TensorFunction... L>
    requires(sizeof...(L) > 0 && !(sizeof...(L) == 1 && (std::same_as<std::remove_cvref_t<L>, Sequential> && ...)))
  explicit Sequential(L... layers) {
    (add(std::move(layers)), ...);
  }

  template <TensorFunction L>
  Sequential& add(L layer) {
    auto held = std::make_shared<L>(std::move(layer));
    Entry e{held, &typeid(L), [held](const Tensor& x) { return std::invoke(*held, x); }, nullptr};
    if constexpr (Visitable<L>) e.visit = [held](StateVisitor& v) { held->visit(v); };
    entries_.push_back(std::move(e));
    return *this;
  }

  Tensor operator()(const Tensor& x) const {
    Tensor y = x;
    for (const Entry& e : entries_) y = e.call(y);
    return y;
  }
  size_t size() const { return entries_.size(); }

  // The layer at |index|, which must have been added as an L (tg::Error otherwise).
  template <class L>
  L& get(size_t index) const {
    if (index >= entries_.size())
      throw Error("Sequential::get: index " + std::to_string(index) + " is past the " +
                  std::to_string(entries_.size()) + " layers");
    if (*entries_[index].type != typeid(L))
      throw Error("Sequential::get: layer " + std::to_string(index) + " is not of the requested type");
    return *static_cast<L*>(entries_[index].layer.get());
  }

  void visit(StateVisitor& v) {
    // Entries are named by position, so "2.weight" stays "2.weight" whatever sits at 0 and 1.
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].visit) v(std::to_string(i), entries_[i]);
  }

 private:
  struct Entry {
    std::shared_ptr<void> layer;
    const std::type_info* type;
    std::function<Tensor(const Tensor&)> call;
    std::function<void(StateVisitor&)> visit;  // callable as e.visit(v), so an Entry is Visitable itself
  };
  std::vector<Entry> entries_;
};

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_SEQUENTIAL_H_
