// Dtype decompositions: arithmetic in types a device cannot compute in runs in float32 instead.
// A codegen step of the walk in docs/architecture.md before opts: bfloat16 is storage only on every dialect we render.
#ifndef TG_COMPILER_CODEGEN_DTYPE_DECOMP_H_
#define TG_COMPILER_CODEGEN_DTYPE_DECOMP_H_

#include "ir/pattern_matcher.h"
#include "ir/uop.h"

namespace tg::compiler {

// ALU ops and reduces on bfloat16 become their float32 versions between casts, so only loads,
// stores, casts and bitcasts ever see a bfloat16 value (rounding once per op, like hardware that
// widens bf16 to fp32 for math).
const PatternMatcher& Bfloat16ToFloatRules();
UOpRef DecomposeBfloat16(const UOpRef& sink);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_DTYPE_DECOMP_H_
