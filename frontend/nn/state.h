// tg::nn model state: get_state_dict / load_state_dict over a model's visit() (frontend/nn/module.h), as
// tinygrad's nn/state.py. The bridge between models and files (frontend/nn/safetensors.h).
#ifndef TG_FRONTEND_NN_STATE_H_
#define TG_FRONTEND_NN_STATE_H_

#include <map>
#include <string>
#include <vector>

#include "frontend/nn/module.h"

namespace tg::nn {

// Name -> tensor, sorted by name (safetensors files store them so too).
using StateDict = std::map<std::string, Tensor>;

// Every tensor of |model| (parameters and buffers such as running statistics) by dotted name. The
// tensors are handles: they share state with the model's members.
template <Visitable M>
StateDict get_state_dict(M& model) {
  StateDict out;
  for (auto& [name, t] : named_tensors(model)) out.emplace(name, t);
  return out;
}

// Copies |state_dict|'s values into |model|'s tensors (moved to each tensor's device and cast to its
// dtype; a () and a (1,) shape count as equal, as tinygrad allows). With |strict|, missing keys,
// unexpected keys and shape mismatches are one tg::Error listing all of them, and nothing is loaded;
// without it, missing and unexpected keys are skipped (shape mismatches still throw). |realize| loads the
// values now (one schedule); otherwise they are read when the model next runs. Returns the loaded names.
std::vector<std::string> load_state_dict(std::vector<std::pair<std::string, Tensor>> model_tensors,
                                         const StateDict& state_dict, bool strict = true, bool realize = true);
template <Visitable M>
std::vector<std::string> load_state_dict(M& model, const StateDict& state_dict, bool strict = true,
                                         bool realize = true) {
  return load_state_dict(named_tensors(model), state_dict, strict, realize);
}

}  // namespace tg::nn

#endif  // TG_FRONTEND_NN_STATE_H_
