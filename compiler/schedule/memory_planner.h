// Memory planner: buffers that live inside one schedule share memory when their lifetimes do not
// overlap (tinygrad's memory_plan_rewrite). Applied by schedule_cache.cc when it binds a schedule.
#ifndef TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_
#define TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_

#include <vector>

#include "compiler/schedule/schedule.h"
#include "runtime/device.h"

namespace tg::compiler {

// Intermediates are the |outputs| of |schedule| (placeholders it writes) that no realized root
// refers to: nothing outside the schedule can see them. Each gets the memory of an earlier
// intermediate whose last use is done (same device, big enough), or new memory; roots keep their
// own. Planned once per cached schedule and applied at every realize: the plan depends on the
// schedule alone (lifetimes, sizes, devices), not on which memory a run gets.
struct OutputPlan {
  std::vector<int> order;  // output indices in the order their nodes are made (a block's maker first)
  std::vector<int> share;  // per output: the output whose memory it takes (made before it), or -1: new memory
  std::vector<runtime::Device*> device;  // per output: where new memory comes from
};
OutputPlan PlanOutputMemory(const Schedule& schedule, const std::vector<UOpRef>& outputs);
// Fresh BUFFER nodes for |outputs| (by index) as |plan| says.
std::vector<UOpRef> ApplyOutputPlan(const OutputPlan& plan, const std::vector<UOpRef>& outputs);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_MEMORY_PLANNER_H_
