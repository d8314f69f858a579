// Vector memory: on the GPU dialects, loads of one buffer at consecutive elements (UPCAST's copies
// reading neighbours; ungated, of a buffer the kernel does not write) become one vector load, and
// such stores (behind one gate) one vector store (float4, half8: 16 bytes), where the first
// element's index is a multiple of the width, so the access is aligned (buffers start aligned) and
// the memory system moves it as one. The values stay scalars: the GPU dialects compute lane by
// lane; only the accesses are wide.
#ifndef TG_COMPILER_CODEGEN_VECTOR_MEMORY_H_
#define TG_COMPILER_CODEGEN_VECTOR_MEMORY_H_

#include "ir/uop.h"

namespace tg::compiler {

// Elements of |dtype| in one |bytes|-wide access: 32- and 16-bit numbers join, others (bool, 64-bit,
// bfloat16 storage, vectors) do not: 0.
int64_t VectorMemoryLanes(DType dtype, int bytes = 16);

// |sink| (after UPCAST/UNROLL expansion) with its runs of |bytes|-wide loads and stores joined.
UOpRef JoinVectorMemory(const UOpRef& sink, int bytes = 16);

// The largest power of two that divides every value |index| takes, as far as its sum of products
// of constants shows (1 where it shows nothing; 0 for the constant 0, which every width divides).
int64_t KnownFactor(const UOpRef& index);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_VECTOR_MEMORY_H_
