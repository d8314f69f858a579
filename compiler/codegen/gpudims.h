// Launch dimensions: maps a kernel's outermost output loop onto workgroup ids (SPECIAL gidx0).
// A codegen step of DESIGN §2, run after rangeify and before linearize.
#ifndef TG_COMPILER_CODEGEN_GPUDIMS_H_
#define TG_COMPILER_CODEGEN_GPUDIMS_H_

#include <array>
#include <cstdint>

#include "ir/uop.h"

namespace tg::compiler {

// Returns |sink| with its outermost output RANGE replaced by SPECIAL "gidx0" and sets
// |num_groups| to the launch grid (1 when the kernel has no output loop).
UOpRef AddGpuDims(const UOpRef& sink, std::array<uint32_t, 3>& num_groups);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_GPUDIMS_H_
