// lane_ops.h: the interpreter's kernels, each one op over a block of lanes (Highway-dispatched, see
// lane_ops.cc): ALU ops per dtype, gathers and scatters per element size and index type.
// A register of a block is kLanes consecutive lane values of its dtype (bool as one byte, 0 or 1);
// a uniform value is the same layout with one lane.
#ifndef TG_PLUGINS_CPU_LANE_OPS_H_
#define TG_PLUGINS_CPU_LANE_OPS_H_

#include <cstddef>
#include <cstdint>

#include "plugins/cpu/uop_program.h"

namespace tg_cpu::uops {

// Lanes per block: a block's registers (300 ops x 64 lanes of <= 8 bytes after reuse) stay in L1/L2,
// and one op's dispatch is paid per 64 lanes.
constexpr size_t kLanes = 64;

// dst[i] = op(a[i], b[i], c[i]) for i < n (n is kLanes or 1). dst may be a source itself (an
// accumulator updated in place), never a partial overlap.
using AluFn = void (*)(void* dst, const void* a, const void* b, const void* c, size_t n);
// The kernel for |op| with result |dtype| and sources of |src0| and |src1| (the second source's dtype
// matters for shifts only); NULL for a combination the parser refuses.
AluFn FindAluKernel(Op op, DType dtype, DType src0, DType src1);

// dst[i] = gate[i] ? base[idx[i]] : 0 for i < n; |gate| NULL means every lane is on.
using GatherFn = void (*)(void* dst, const void* base, const void* idx, const uint8_t* gate, size_t n);
// base[idx[i]] = src[i] for i < n where gate[i], in lane order.
using ScatterFn = void (*)(void* base, const void* idx, const void* src, const uint8_t* gate, size_t n);
// |elem_bytes| 1, 2, 4 or 8; |idx| i32 or i64.
GatherFn FindGather(size_t elem_bytes, DType idx);
ScatterFn FindScatter(size_t elem_bytes, DType idx);

// Consecutive elements: a plain vector copy of |bytes| (loads and stores of an index that counts up
// by one per lane).
void CopyLanes(void* dst, const void* src, size_t bytes);
// kLanes copies of the |elem_bytes|-byte value at |src|.
void SplatLanes(void* dst, const void* src, size_t elem_bytes);
// Whether all n gate bytes are 1.
bool AllOn(const uint8_t* gate, size_t n);

}  // namespace tg_cpu::uops

#endif  // TG_PLUGINS_CPU_LANE_OPS_H_
