// Compares one fuzz::Program on a device against the float64 reference, and shrinks a failing program.
// Used by the fixed-seed CI slice (tests/fuzz) and by tools/fuzz_programs for long runs.
#ifndef TG_TESTS_FUZZ_DIFFERENTIAL_H_
#define TG_TESTS_FUZZ_DIFFERENTIAL_H_

#include <optional>
#include <string>

#include "tests/fuzz/program.h"

namespace tg::fuzz {

struct CheckStats {
  int64_t compared = 0;  // elements checked against the reference
  int64_t skipped = 0;   // elements whose reference is ill-conditioned (infinite error bound)
};

// nullopt when every output element is within its error bound of the reference; otherwise what differs
// (output, flat index, got, want, bound) or the error the compiler or device threw.
std::optional<std::string> CheckProgram(const Program& program, const std::string& device, CheckStats* stats = nullptr);

// A smaller program that still fails on |device|: the earliest failing step becomes the only output, then
// steps are replaced by inputs holding their reference values while the failure persists, then unused
// steps are dropped. Keeps the failure's kind (a thrown error stays a thrown error).
Program ShrinkFailure(const Program& program, const std::string& device);

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_DIFFERENTIAL_H_
