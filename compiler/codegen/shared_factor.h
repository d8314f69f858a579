// Shared factors: the unrolled copies of a sum often multiply by the same value, a dequantized matmul's
// block scale above all (x·(q·s) for every weight q of a block). Summing the copies first and
// multiplying once, x₀·(q₀·s) + x₁·(q₁·s) = (x₀·q₀ + x₁·q₁)·s, saves a multiply per copy: on a CPU
// whose vector unit bounds a quantized matrix-vector product, a quarter of its arithmetic.
#ifndef TG_COMPILER_CODEGEN_SHARED_FACTOR_H_
#define TG_COMPILER_CODEGEN_SHARED_FACTOR_H_

#include "ir/pattern_matcher.h"

namespace tg::compiler {

// One rule, for the root of a sum of two products (non-bool): a·f + b·f -> (a + b)·f, where f is
// a factor of both products' MUL trees (the same node) and a, b the products of their other factors.
// Float rounding differs from the unfactored sum as any reassociation does; the expander applies it
// only where it folds a reduce's unrolled copies, never to index arithmetic.
const PatternMatcher& SharedFactorRules();

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_SHARED_FACTOR_H_
