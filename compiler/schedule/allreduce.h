// ALLREDUCE lowering: each ALLREDUCE node (ir/multi_arg.h) becomes copies and reduce kernels the
// scheduler already knows. Devices of one plugin that copy directly (runtime::Buffer::CopiesDirectly)
// get a ring: reduce-scatter (chunk i travels the ring, each device adding its part) then all-gather
// (the reduced chunks travel on). Other device sets (CPU + OPENCL) get the naive form: every device
// copies every other device's partial, staged through host memory, and reduces them itself.
#ifndef TG_COMPILER_SCHEDULE_ALLREDUCE_H_
#define TG_COMPILER_SCHEDULE_ALLREDUCE_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

// |roots| with every ALLREDUCE below them lowered. Nodes are hash-consed, so the ALLREDUCEs of one
// reduction (one per device) share their ring: each copy and partial sum is scheduled once.
std::vector<UOpRef> LowerAllreduces(const std::vector<UOpRef>& roots);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_ALLREDUCE_H_
