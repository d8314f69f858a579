#include "compiler/render/kernel_params.h"

#include <algorithm>

#include "ir/error.h"

namespace tg::compiler {

KernelParams ScanParams(const std::vector<UOpRef>& ops) {
  KernelParams p;
  for (const UOpRef& u : ops) {
    if (u->op() != Ops::kDefineGlobal) continue;
    size_t slot = static_cast<size_t>(u->arg_as<int64_t>());
    if (p.buffers.size() <= slot) p.buffers.resize(slot + 1), p.written.resize(slot + 1);
    p.buffers[slot] = u;
  }
  // A STORE's first source is INDEX(DEFINE_GLOBAL or DEFINE_LOCAL, ...); only the first is a parameter.
  for (const UOpRef& u : ops)
    if (u->op() == Ops::kStore && u->src(0)->src(0)->op() == Ops::kDefineGlobal)
      p.written[u->src(0)->src(0)->arg_as<int64_t>()] = true;
  for (const UOpRef& u : ops)
    if (u->op() == Ops::kDefineVar && std::find(p.variables.begin(), p.variables.end(), u) == p.variables.end()) {
      if (u->dtype() != dtypes::int32)
        throw Error("kernel parameters: variable '" + u->arg_as<std::string>() + "' is " + u->dtype().name() +
                    "; kernel variables are int32");
      p.variables.push_back(u);
    }
  std::sort(p.variables.begin(), p.variables.end(), [](const UOpRef& a, const UOpRef& b) {
    return a->arg_as<std::string>() < b->arg_as<std::string>();
  });
  for (size_t i = 1; i < p.variables.size(); ++i)
    if (p.variables[i]->arg_as<std::string>() == p.variables[i - 1]->arg_as<std::string>())
      throw Error("kernel parameters: variable '" + p.variables[i]->arg_as<std::string>() +
                  "' appears with two ranges in one kernel; give each range its own name");
  return p;
}

size_t KernelParams::VariableSlot(const UOpRef& variable) const {
  auto it = std::find(variables.begin(), variables.end(), variable);
  if (it == variables.end()) throw Error("kernel parameters: DEFINE_VAR '" + variable->arg_as<std::string>() + "' not scanned");
  return static_cast<size_t>(it - variables.begin());
}

}  // namespace tg::compiler
