// ScheduleCache: reuses the schedule of a graph across realizes that differ only in the buffers
// they read (a training step, a dispatch loop). tinygrad's schedule cache; used by realize.cc.
#ifndef TG_COMPILER_SCHEDULE_SCHEDULE_CACHE_H_
#define TG_COMPILER_SCHEDULE_SCHEDULE_CACHE_H_

#include <string>
#include <vector>

#include "compiler/schedule/schedule.h"

namespace tg::compiler {

// The schedule of |roots| on |devices|, with the graph's own buffers bound and fresh output
// buffers made. The graph is keyed with every BUFFER replaced by a numbered placeholder, so the
// scheduler, rangeify and codegen run once per graph shape, not once per realize.
Schedule CachedSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_SCHEDULE_CACHE_H_
