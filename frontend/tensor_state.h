// The state behind a tg::Tensor handle (private to the front end).
// Shared by every copy of a handle, like a Python reference: realize() updates all of them.
#ifndef TG_FRONTEND_TENSOR_STATE_H_
#define TG_FRONTEND_TENSOR_STATE_H_

#include <memory>
#include <string>

#include "frontend/tensor.h"

namespace tg {

struct Tensor::State {
  UOpRef uop;
  std::string device;
  bool requires_grad = false;
  std::shared_ptr<State> grad;  // set by backward(); null until then
};

}  // namespace tg

#endif  // TG_FRONTEND_TENSOR_STATE_H_
