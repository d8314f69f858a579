// Random integer expressions over RANGE/DEFINE_VAR variables, checked by brute force before and after Simplify.
// Also checks the range analysis: every value an expression takes must lie in [vmin, vmax].
#ifndef TG_TESTS_FUZZ_SYMBOLIC_FUZZ_H_
#define TG_TESTS_FUZZ_SYMBOLIC_FUZZ_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::fuzz {

struct SymbolicCase {
  UOpRef expr;                // int32 (dtypes::index) expression
  std::vector<UOpRef> vars;   // its RANGE / DEFINE_VAR / SPECIAL leaves
};

// The same seed gives the same expression everywhere (integer-only draws from std::mt19937_64).
SymbolicCase GenerateSymbolic(uint64_t seed);

// Evaluates |root| with C semantics (division truncates, remainder takes the dividend's sign, int32 wraps
// are reported, not wrapped). |values[i]| is the value of |vars[i]|. nullopt with |why| set when the value is
// undefined (x/0, x%0, int32 overflow) or uses an op this interpreter does not know.
std::optional<int64_t> EvalInt(const UOpRef& root, const std::vector<UOpRef>& vars, const std::vector<int64_t>& values,
                               std::string* why);

// nullopt when Simplify(expr) equals expr at every point of the variables' ranges and both stay inside their
// own [vmin, vmax]; otherwise the first counterexample, with both expressions printed.
std::optional<std::string> CheckSimplify(const SymbolicCase& c);

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_SYMBOLIC_FUZZ_H_
