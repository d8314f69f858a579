// Vectorizer: turns one expanded loop of n iterations into n-wide vector values (CPU SIMD).
// A codegen step of the walk in docs/architecture.md after opts; what cannot be a vector op is computed lane by lane.
#ifndef TG_COMPILER_CODEGEN_VECTORIZER_H_
#define TG_COMPILER_CODEGEN_VECTORIZER_H_

#include "compiler/target.h"
#include "ir/uop.h"

namespace tg::compiler {

// Removes |range| (an UPCAST or UNROLL loop) from |sink|: values that vary with it become vectors
// of its extent (dtype count n). Loads and stores whose index moves by one per lane become vector
// loads/stores; others gather/scatter lane by lane. A REDUCE over |range| accumulates a vector and
// folds its lanes at the end. An ALU op is a vector op where |target|'s dialect computes it whole.
UOpRef VectorizeAxis(const UOpRef& sink, const UOpRef& range, const Target& target);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_VECTORIZER_H_
