// One unit of work of a schedule: a kernel to compile and launch, or a copy between devices.
// Produced by compiler/schedule/schedule.cc, consumed by compiler/realize.cc (docs/architecture.md).
#ifndef TG_COMPILER_SCHEDULE_SCHEDULE_ITEM_H_
#define TG_COMPILER_SCHEDULE_SCHEDULE_ITEM_H_

#include <string>
#include <vector>

#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

struct ScheduleItem {
  enum class Kind { kKernel, kCopy };
  Kind kind = Kind::kKernel;
  // kKernel: SINK of STOREs over DEFINE_GLOBALs, movement ops already lowered to index math.
  UOpRef ast;
  // BUFFER nodes in parameter order; buffers[0] is written (the output), the rest are read.
  // kCopy: buffers[0] is the destination, buffers[1] the source.
  std::vector<UOpRef> buffers;
  std::string device;  // where the kernel runs (the destination of a copy)
  // |device| resolved once when the schedule is made (compiler/schedule/schedule_cache), so that a
  // launch, and every replay of a captured item, skips the registry; null: look |device| up.
  runtime::Device* runs_on = nullptr;
  // kKernel: the DEFINE_VARs of |ast| in parameter order (after the buffers), and their values for
  // this run (compiler/schedule/bound_variables.h). Empty for a kernel without variables.
  std::vector<UOpRef> variables;
  std::vector<int64_t> var_values;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_SCHEDULE_ITEM_H_
