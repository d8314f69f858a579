// Memory planner: buffers that live inside one schedule share memory when their lifetimes do not
// overlap (tinygrad's memory_plan_rewrite). Applied by schedule_cache.cc when it binds a schedule.
#ifndef TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_
#define TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_

#include <vector>

#include "compiler/schedule/schedule.h"
#include "ir/substitute.h"

namespace tg::compiler {

// Intermediates are the |outputs| of |schedule| (placeholders it writes) that no realized root
// refers to: nothing outside the schedule can see them. Each gets the memory of an earlier
// intermediate whose last use is done (same device, big enough), or new memory. Returns fresh
// BUFFER nodes for all |outputs| (roots keep their own memory) keyed by placeholder.
NodeMap PlanOutputs(const Schedule& schedule, const std::vector<UOpRef>& outputs);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_
