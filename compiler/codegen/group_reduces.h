// Group reduces (tinygrad's GROUP_REDUCE): a reduce split over the work items of a group. Each work
// item reduces its share of the axis, stores that partial in an array of local memory (one slot per
// work item), waits at a barrier for the group, and reduces the array. Every work item then holds
// the whole reduction; the kernel's stores are left to the group's first work item along each group
// axis, so one output is written once.
#ifndef TG_COMPILER_CODEGEN_GROUP_REDUCES_H_
#define TG_COMPILER_CODEGEN_GROUP_REDUCES_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// |sink|'s reduces over any of |groups| (the kernel's GROUP_REDUCE ranges) combined through local
// memory; |locals| are the kernel's LOCAL ranges, which with |groups| name a work item's slot. Runs
// before the launch ids replace the ranges.
UOpRef ShareGroupReduces(const UOpRef& sink, const std::vector<UOpRef>& locals, const std::vector<UOpRef>& groups);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_GROUP_REDUCES_H_
