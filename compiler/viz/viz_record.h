// The VIZ recorder's compiler half: each realize's tensor graph, its schedule (kernels, copies, buffers and
// the memory plan's lifetimes) and each generated kernel (opts, launch grid, source), recorded where they are
// made. ir/rewrite_trace.h holds the passes; compiler/viz/viz_page.h draws both (docs/viz.md).
#ifndef TG_COMPILER_VIZ_VIZ_RECORD_H_
#define TG_COMPILER_VIZ_VIZ_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/schedule/schedule.h"
#include "ir/rewrite_trace.h"
#include "runtime/launch_args.h"
#include "runtime/program.h"

namespace tg::viz {

struct BufferRecord {
  int64_t id = 0;
  std::string device, dtype;
  int64_t numel = 0, bytes = 0;
  int first_use = -1, last_use = -1;  // schedule items
  int block = 0;                      // buffers with equal |block| share memory (the memory plan)
  bool shared = false;                // its memory is also some other buffer's
};
struct ItemRecord {
  std::string kind;  // "kernel" or "copy"
  std::string name;  // the kernel's name; "copy" for copies
  std::string device;
  std::vector<int> buffers;  // into ScheduleRecord::buffers; [0] is written
};
struct ScheduleRecord {
  int64_t seq = 0;
  int realize = 0;
  std::vector<ItemRecord> items;
  std::vector<BufferRecord> buffers;
};
struct KernelRecord {
  int64_t seq = 0;
  int realize = 0;
  std::string name, device, dialect, source;
  std::vector<std::string> opts;  // in the order applied; empty: none (NOOPT, or nothing to gain)
  runtime::LaunchDims dims;
};
struct TensorGraphRecord {
  int64_t seq = 0;
  int realize = 0;
  TracedGraph graph;
};

struct VizSnapshot {
  std::vector<TensorGraphRecord> graphs;
  std::vector<PassStep> passes;
  std::vector<ScheduleRecord> schedules;
  std::vector<KernelRecord> kernels;
  int64_t dropped = 0;  // records past the caps, not kept
};

// Begins a realize of |roots| and records their graph. With VIZ=1 in the environment, the first one
// also has the page written at exit (viz_page.h). Realizes past kMaxRealizes still run, unrecorded.
void RecordRealize(const std::vector<UOpRef>& roots);
constexpr int kMaxRealizes = 64;
// The bound schedule of the current realize: real buffers, so shared memory shows as shared storage.
void RecordSchedule(const compiler::Schedule& schedule);
void RecordKernel(const std::string& name, const std::string& device, const std::vector<std::string>& opts,
                  const runtime::KernelSource& source, const runtime::LaunchDims& dims);

VizSnapshot Snapshot();
void ClearRecords();  // passes too

}  // namespace tg::viz

#endif  // TG_COMPILER_VIZ_VIZ_RECORD_H_
