// Bound variables: how a value that changes from call to call reaches a kernel without becoming part
// of it. The front end binds a DEFINE_VAR to a value with a BIND node; Realize strips the BINDs so the
// schedule cache, the kernel cache and every kernel AST see only the variable (its name and range),
// and the values travel beside the schedule to the launches as int32 arguments (docs/variables.md).
#ifndef TG_COMPILER_SCHEDULE_BOUND_VARIABLES_H_
#define TG_COMPILER_SCHEDULE_BOUND_VARIABLES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/schedule/schedule_item.h"
#include "ir/uop.h"

namespace tg::compiler {

// Variable name -> value, for one realize or one replay.
using VariableValues = std::vector<std::pair<std::string, int64_t>>;

struct UnboundGraph {
  std::vector<UOpRef> roots;  // the graph with every BIND replaced by its DEFINE_VAR
  VariableValues values;      // the values the BINDs carried, one per variable
};
// Splits |roots| into the graph without values and the values. tg::Error when one variable is bound
// to two values, or two variables of one name have different ranges.
UnboundGraph StripBinds(const std::vector<UOpRef>& roots);

// |root| with each variable that |values| has a value for bound to it again (a realized view's lengths).
UOpRef BindVariables(const UOpRef& root, const VariableValues& values);

// The DEFINE_VARs under |root|, in name order: the order of a kernel's variable parameters.
std::vector<UOpRef> VariablesUnder(const UOpRef& root);
// The DEFINE_VARs a kernel AST lists after its stores and buffers (rangeify.h), in parameter order.
std::vector<UOpRef> KernelVariables(const UOpRef& ast);

// Sets each kernel item's var_values from |values|, in its variables' order; tg::Error naming a
// variable that has no value (built from a tg::Variable that was never bound).
void SetVariableValues(std::vector<ScheduleItem>& items, const VariableValues& values);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_BOUND_VARIABLES_H_
