// Launch dimensions: turns a kernel's GLOBAL and LOCAL loops into workgroup and work-item ids.
// A codegen step of the walk in docs/architecture.md, run after opts and expansion, before linearize.
#ifndef TG_COMPILER_CODEGEN_GPUDIMS_H_
#define TG_COMPILER_CODEGEN_GPUDIMS_H_

#include <vector>

#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

// Returns |sink| with globals[i] replaced by SPECIAL "gidx<i>" and locals[i] by "lidx<i>" (at most
// three of each; further ones stay loops) and sets |dims| to the grid: num_groups from the
// globals, group_size from the locals.
UOpRef AddGpuDims(const UOpRef& sink, const std::vector<UOpRef>& globals, const std::vector<UOpRef>& locals,
                  runtime::LaunchDims& dims);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_GPUDIMS_H_
