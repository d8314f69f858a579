// tg::Variable: an integer that changes from call to call without recompiling anything (tinygrad's
// Variable). A kernel reads a bound variable's value as an argument, so the kernel, the schedule and a
// tg::Jit's capture serve every value in the variable's range (docs/variables.md).
#ifndef TG_FRONTEND_VARIABLE_H_
#define TG_FRONTEND_VARIABLE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/tensor.h"
#include "ir/uop.h"

namespace tg {

class BoundVariable;

// Usage (a KV-cache position that one captured decode step serves for every token):
//   tg::Variable pos("pos", 0, context - 1);
//   tg::Jit step([&](const std::vector<tg::Tensor>& in) { ... in[1] is the position, an int32 scalar ... });
//   for (int64_t p = 0; p < n; ++p) step({token, pos.bind(p).tensor()});
// A variable is an int32 scalar tensor in the graph; ops combine it with tensors as with any scalar.
class Variable {
 public:
  // tg::Error for an empty name or a range that is empty or leaves int32.
  Variable(std::string name, int64_t min, int64_t max);

  const std::string& name() const { return name_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }

  // The variable at |value|; tg::Error naming the variable when |value| is outside [min, max].
  BoundVariable bind(int64_t value) const;
  // The variable unbound, as a scalar tensor: realizing a graph that reads it is a tg::Error naming
  // it, unless a bound copy of the same variable is realized with it.
  Tensor tensor(std::string_view device = "") const;
  // The graph node (DEFINE_VAR); equal for equal name and range.
  UOpRef uop() const;

 private:
  std::string name_;
  int64_t min_, max_;
};

class BoundVariable {
 public:
  const Variable& variable() const { return variable_; }
  int64_t value() const { return value_; }
  // An int32 scalar tensor of the value, on |device| (the default device when empty). Kernels read it
  // as an argument: tensors built from different values of one variable share their kernels.
  Tensor tensor(std::string_view device = "") const;

 private:
  friend class Variable;
  BoundVariable(Variable variable, int64_t value) : variable_(std::move(variable)), value_(value) {}
  Variable variable_;
  int64_t value_;
};

// Whether |t| is a bound variable's tensor (what BoundVariable::tensor returns): tg::Jit passes such
// an input's value to its captured kernels instead of a buffer.
bool IsBoundVariable(const Tensor& t);

}  // namespace tg

#endif  // TG_FRONTEND_VARIABLE_H_
