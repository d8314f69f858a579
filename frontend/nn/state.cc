// tg::nn::load_state_dict: checks every key and shape first, so a bad file changes nothing in the model.
#include "frontend/nn/state.h"

#include <set>

namespace tg::nn {
namespace {

bool ShapesMatch(const Shape& a, const Shape& b) {
  auto scalar_like = [](const Shape& s) { return s.empty() || s == Shape{1}; };
  return a == b || (scalar_like(a) && scalar_like(b));
}

std::string JoinProblems(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += "\n  " + p;
  return out;
}

}  // namespace

std::vector<std::string> load_state_dict(std::vector<std::pair<std::string, Tensor>> model_tensors,
                                         const StateDict& state_dict, bool strict, bool realize) {
  std::vector<std::string> problems, loaded;
  std::set<std::string> model_keys;
  for (auto& [name, t] : model_tensors) {
    model_keys.insert(name);
    auto it = state_dict.find(name);
    if (it == state_dict.end()) {
      if (strict) problems.push_back("missing key \"" + name + "\" (the model has " + ShapeString(t.shape()) + ")");
    } else if (!ShapesMatch(it->second.shape(), t.shape())) {
      problems.push_back("shape mismatch for \"" + name + "\": the model has " + ShapeString(t.shape()) +
                         ", the state dict " + ShapeString(it->second.shape()));
    }
  }
  if (strict)
    for (auto& [name, t] : state_dict)
      if (!model_keys.contains(name)) problems.push_back("unexpected key \"" + name + "\" " + ShapeString(t.shape()));
  if (!problems.empty())
    throw Error("load_state_dict: " + std::to_string(problems.size()) + " problem(s), nothing was loaded:" +
                JoinProblems(problems) + "\n(pass strict=false to skip missing and unexpected keys)");
  std::vector<Tensor> targets;
  for (auto& [name, t] : model_tensors) {
    auto it = state_dict.find(name);
    if (it == state_dict.end()) continue;
    t.assign(it->second.to(t.device()).cast(t.dtype()).reshape(t.shape()));
    targets.push_back(t);
    loaded.push_back(name);
  }
  if (realize) Tensor::realize_all(targets);
  return loaded;
}

}  // namespace tg::nn
