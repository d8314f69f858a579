// Capture: records the schedule items realize() runs, so tg::Jit can replay them later with other
// buffers bound. The compiler half of tg::Jit (docs/architecture.md); frontend/jit.h is the user's half.
#ifndef TG_COMPILER_CAPTURE_H_
#define TG_COMPILER_CAPTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "compiler/schedule/schedule_item.h"
#include "runtime/launch_args.h"
#include "runtime/program.h"

namespace tg::compiler {

// While alive, every item Realize runs on this thread is also appended to items(). Not nestable.
class CaptureScope {
 public:
  CaptureScope();
  ~CaptureScope();
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;
  const std::vector<ScheduleItem>& items() const { return items_; }

 private:
  std::vector<ScheduleItem> items_;
};

// Whether a CaptureScope is alive on this thread (reading tensor data then is an error).
bool Capturing();

// Appends |item| to this thread's CaptureScope when one is alive (RunItems does, for each item it runs).
void RecordForCapture(const ScheduleItem& item);

// What a captured kernel item launches: its program (compiled, or loaded from the disk cache) and grid.
struct CapturedKernel {
  std::shared_ptr<runtime::Program> program;
  runtime::LaunchDims dims;
  std::string name;
};
// The kernel of |item| (a kernel item that has run, so its program is in the kernel cache); waits for
// its compile and throws tg::Error when it failed. Saving a Jit reads each kernel's binary through it.
CapturedKernel CapturedKernelOf(const ScheduleItem& item);

// Runs |items| in order, as realize() would (kernels from the kernel cache, copies staged). A |replay|
// (tg::Jit's), like anything run while capturing, runs every kernel in the optimized tier (docs/tiers.md).
void RunItems(const std::vector<ScheduleItem>& items, bool replay = false);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CAPTURE_H_
