#include "frontend/variable.h"

#include <limits>
#include <utility>

#include "compiler/compiler.h"
#include "frontend/devices.h"
#include "ir/error.h"

namespace tg {
namespace {

// The canonical name of |device| (the default device when empty): a variable's tensor lives on one device.
std::string DeviceFor(std::string_view device) {
  return compiler::DeviceNamed(device.empty() ? default_device() : std::string(device)).name();
}

std::string Describe(const Variable& v) {
  return "variable '" + v.name() + "' [" + std::to_string(v.min()) + ", " + std::to_string(v.max()) + "]";
}

}  // namespace

Variable::Variable(std::string name, int64_t min, int64_t max) : name_(std::move(name)), min_(min), max_(max) {
  if (name_.empty()) throw Error("Variable: the name is empty; give each variable a name (it names it in errors)");
  constexpr int64_t kLow = std::numeric_limits<int32_t>::min(), kHigh = std::numeric_limits<int32_t>::max();
  if (min_ > max_ || min_ < kLow || max_ > kHigh)
    throw Error("Variable '" + name_ + "': range [" + std::to_string(min_) + ", " + std::to_string(max_) +
                "] is not allowed; min <= max, both within int32 (kernels take variables as int32)");
}

UOpRef Variable::uop() const { return UOp::Variable(name_, min_, max_, dtypes::int32); }

BoundVariable Variable::bind(int64_t value) const {
  if (value < min_ || value > max_)
    throw Error(Describe(*this) + ": cannot bind " + std::to_string(value) + ", which is outside its range");
  return BoundVariable(*this, value);
}

Tensor Variable::tensor(std::string_view device) const { return Tensor(uop(), DeviceFor(device)); }

Tensor BoundVariable::tensor(std::string_view device) const {
  return Tensor(UOp::Bind(variable_.uop(), value_), DeviceFor(device));
}

bool IsBoundVariable(const Tensor& t) { return t.uop()->op() == Ops::kBind; }

}  // namespace tg
