// Transcendentals as polynomials: EXP2, LOG2 and SIN rewritten into + * compares, selects, casts,
// bit casts and integer ops (tinygrad's codegen/decomp/transcendental.py, SLEEF's algorithms), for
// dialects that lack them and for CPU vectors, where a libm call per lane stops vectorization.
// A codegen step of the walk in docs/architecture.md after opts, before the expander and vectorizer.
#ifndef TG_COMPILER_CODEGEN_TRANSCENDENTAL_H_
#define TG_COMPILER_CODEGEN_TRANSCENDENTAL_H_

#include <functional>

#include "ir/uop.h"

namespace tg::compiler {

// ~1 ulp approximations on float32 / float64 (float16 computes in float32 and rounds back).
// Special values follow C: exp2(-inf)=0, exp2(inf)=inf, log2(0)=-inf, log2(x<0)=nan, sin(inf)=nan.
UOpRef Exp2Polynomial(const UOpRef& d);
UOpRef Log2Polynomial(const UOpRef& d);
UOpRef SinPolynomial(const UOpRef& d);

// Rewrites each EXP2 / LOG2 / SIN node of |sink| for which |keep_native| returns false. Half and
// bfloat16 operands compute in float32; |keep_native| is asked again for that float32 op.
UOpRef DecomposeTranscendentals(const UOpRef& sink, const std::function<bool(const UOpRef&)>& keep_native);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_TRANSCENDENTAL_H_
