// Scheduler: cuts the tensor graph of the tensors being realized into kernels and orders them.
// Step 2 of the walk (docs/architecture.md): decides what becomes a buffer (fusion rules), then rangeifies each kernel.
#ifndef TG_COMPILER_SCHEDULE_SCHEDULE_H_
#define TG_COMPILER_SCHEDULE_SCHEDULE_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/schedule/schedule_item.h"
#include "ir/uop.h"

namespace tg::compiler {

struct Schedule {
  std::vector<ScheduleItem> items;  // in execution order
  std::vector<UOpRef> realized;     // per root: a view of the BUFFER that will hold it
};

// Makes the BUFFER node a scheduled kernel writes: (device, dtype, elements) -> BUFFER.
using OutputBufferFactory = std::function<UOpRef(const std::string&, DType, int64_t)>;

// Schedules |roots| (tensor-graph nodes), root i to be realized on |devices[i]|. Fusion rules:
//  - elementwise and movement ops fuse into their consumer (recomputed per consumer kernel), unless
//    recomputing them inside reduce loops costs more than storing them (fusion_rules.h);
//  - a REDUCE fuses into its consumer unless the path to that consumer broadcasts it (EXPAND), pads
//    it or forks, in which case it ends a kernel;
//  - CONTIGUOUS, COPY (and the source of a COPY) and the roots themselves become buffers.
// A reduce with a long loop and few outputs is first split into partials and a combine (split_reduce.h).
// Outputs come from |make_output| (default: NewBufferNode, real device memory).
Schedule CreateSchedule(const std::vector<UOpRef>& roots, const std::vector<std::string>& devices,
                        const OutputBufferFactory& make_output = nullptr);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_SCHEDULE_H_
