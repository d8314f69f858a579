// Gated indices: a load or store behind a gate only addresses memory where the gate holds, so its
// index may be simplified with the bounds the gate puts on the loop variables (tinygrad's
// uop_given_valid). Padding and concatenation gate indices of the form (i - 512) / 64 % 4 that are
// only simple once i >= 512 is known. A codegen step after the loops are expanded, before linearizing.
#ifndef TG_COMPILER_CODEGEN_GATED_INDEX_H_
#define TG_COMPILER_CODEGEN_GATED_INDEX_H_

#include "ir/uop.h"

namespace tg::compiler {

// |sink| with each INDEX under a scalar gate simplified over the variable ranges the gate allows.
// Lane-masked (vector-gated) indices keep their index: the lanes share it.
UOpRef SimplifyGatedIndices(const UOpRef& sink);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_GATED_INDEX_H_
