#include "compiler/schedule/bound_variables.h"

#include <algorithm>

#include "ir/error.h"
#include "ir/substitute.h"

namespace tg::compiler {
namespace {

const std::string& NameOf(const UOpRef& variable) { return variable->arg_as<std::string>(); }

std::string RangeOf(const UOpRef& variable) {
  return "[" + std::to_string(variable->vmin()) + ", " + std::to_string(variable->vmax()) + "]";
}

bool ByName(const UOpRef& a, const UOpRef& b) { return NameOf(a) < NameOf(b); }

// Two different DEFINE_VARs of one name would be two kernel parameters of one name.
void CheckOneRangePerName(const std::vector<UOpRef>& sorted) {
  for (size_t i = 1; i < sorted.size(); ++i)
    if (NameOf(sorted[i]) == NameOf(sorted[i - 1]))
      throw Error("variable '" + NameOf(sorted[i]) + "' is used with two ranges, " + RangeOf(sorted[i - 1]) +
                  " and " + RangeOf(sorted[i]) + "; one name has one range");
}

}  // namespace

UnboundGraph StripBinds(const std::vector<UOpRef>& roots) {
  UnboundGraph out{roots, {}};
  bool any = std::any_of(roots.begin(), roots.end(), [](const UOpRef& r) { return r->has_bind(); });
  if (!any) return out;
  NodeMap unbind;
  std::vector<UOpRef> variables;
  for (const UOpRef& u : UOp::Sink(roots)->toposort()) {
    if (u->op() != Ops::kBind) continue;
    const UOpRef& variable = u->src(0);
    int64_t value = u->src(1)->const_int();
    auto same_name = std::find_if(out.values.begin(), out.values.end(),
                                  [&](const auto& v) { return v.first == NameOf(variable); });
    if (same_name != out.values.end() && same_name->second != value)
      throw Error("variable '" + NameOf(variable) + "' is bound to " + std::to_string(same_name->second) + " and to " +
                  std::to_string(value) + " in one realize; bind it once per realize");
    if (same_name == out.values.end()) out.values.emplace_back(NameOf(variable), value);
    variables.push_back(variable);
    unbind[u.get()] = variable;
  }
  std::sort(variables.begin(), variables.end(), ByName);
  variables.erase(std::unique(variables.begin(), variables.end()), variables.end());
  CheckOneRangePerName(variables);
  out.roots = Substitute(UOp::Sink(roots), unbind)->src();
  return out;
}

UOpRef BindVariables(const UOpRef& root, const VariableValues& values) {
  NodeMap bind;
  for (const UOpRef& v : VariablesUnder(root)) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& nv) { return nv.first == NameOf(v); });
    if (it != values.end()) bind[v.get()] = UOp::Bind(v, it->second);
  }
  return bind.empty() ? root : Substitute(root, bind);
}

std::vector<UOpRef> VariablesUnder(const UOpRef& root) {
  std::vector<UOpRef> variables;
  for (const UOpRef& u : root->toposort())
    if (u->op() == Ops::kDefineVar) variables.push_back(u);
  std::sort(variables.begin(), variables.end(), ByName);
  variables.erase(std::unique(variables.begin(), variables.end()), variables.end());
  CheckOneRangePerName(variables);
  return variables;
}

std::vector<UOpRef> KernelVariables(const UOpRef& ast) {
  std::vector<UOpRef> variables;
  for (const UOpRef& s : ast->src())
    if (s->op() == Ops::kDefineVar) variables.push_back(s);
  return variables;
}

void SetVariableValues(std::vector<ScheduleItem>& items, const VariableValues& values) {
  for (ScheduleItem& item : items) {
    item.var_values.clear();
    for (const UOpRef& variable : item.variables) {
      auto it = std::find_if(values.begin(), values.end(), [&](const auto& v) { return v.first == NameOf(variable); });
      if (it == values.end())
        throw Error("variable '" + NameOf(variable) + "' (range " + RangeOf(variable) +
                    ") is not bound: bind it to a value (tg::Variable::bind) before the tensor is realized");
      item.var_values.push_back(it->second);
    }
  }
}

}  // namespace tg::compiler
