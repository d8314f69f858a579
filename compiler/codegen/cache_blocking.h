// Cache blocking: the loop order and reduce blocks of a register-tiled reduce (a matmul), chosen from
// the target's cache sizes so the operand the output tiles share stays cached while they sweep it.
#ifndef TG_COMPILER_CODEGEN_CACHE_BLOCKING_H_
#define TG_COMPILER_CODEGEN_CACHE_BLOCKING_H_

#include "compiler/codegen/kernel.h"
#include "compiler/target.h"

namespace tg::compiler {

// For C = A @ B tiled as rows x vectors: B's slice under one tile (reduce length x the tile's
// columns) is re-read by every row tile. When that slice outgrows the first-level cache, the reduce
// runs in blocks (BLOCK) whose slice fits it, the threads split the columns (SWAP), and each group
// takes as many column tiles (THREAD) as keep one block of them in the second-level cache while the
// rows sweep it. Returns whether it applied anything (the caller then leaves the group size alone).
bool BlockForCache(Kernel& k, const Target& target);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_CACHE_BLOCKING_H_
