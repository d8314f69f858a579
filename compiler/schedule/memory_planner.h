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

// PlanOutputs in two halves, so a cached schedule plans once and each realize only allocates.
// The plan depends on the schedule alone (lifetimes, sizes, devices), not on which memory a run gets.
struct OutputPlan {
  std::vector<int> order;  // output indices in the order their nodes are made (as PlanOutputs makes them)
  std::vector<int> share;  // per output: the output whose memory it takes (made before it), or -1: new memory
};
OutputPlan PlanOutputMemory(const Schedule& schedule, const std::vector<UOpRef>& outputs);
// Fresh BUFFER nodes for |outputs| (by index) as |plan| says.
std::vector<UOpRef> ApplyOutputPlan(const OutputPlan& plan, const std::vector<UOpRef>& outputs);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_
