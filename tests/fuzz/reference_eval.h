// A tiny float64 interpreter for fuzz::Program that carries a running error bound with every element.
// It is the "truth" side of differential testing: plain loops, no UOps, nothing shared with the compiler.
#ifndef TG_TESTS_FUZZ_REFERENCE_EVAL_H_
#define TG_TESTS_FUZZ_REFERENCE_EVAL_H_

#include <vector>

#include "tests/fuzz/program.h"

namespace tg::fuzz {

// |value| is exact float64 arithmetic on the float32 inputs. |err| bounds how far a float32 evaluation in any
// order may drift from it (first-order running error analysis with a few ulp per operation); it is +inf where
// the result is ill-conditioned (a comparison too close to call, a log near 0), and those elements are not
// compared. This is what lets random programs use sub, comparisons and where without false alarms.
struct RefArray {
  Dims dims;
  std::vector<double> value;
  std::vector<double> err;
};

// Evaluates |step| given the results of all earlier steps. Throws std::logic_error when the step's arguments
// do not fit its inputs' shapes (a generator bug), so a bad program never looks like a compiler bug.
// With |check_dims| false the result's shape is computed, not compared with step.dims (the generator's use).
RefArray EvalStep(const Step& step, const std::vector<RefArray>& done, bool check_dims = true);
std::vector<RefArray> EvalProgram(const Program& program);

// Numpy broadcasting of two shapes; empty optional-like result (ok=false) when incompatible.
bool BroadcastDims(const Dims& a, const Dims& b, Dims* out);

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_REFERENCE_EVAL_H_
