// Generates random fuzz::Programs from a seed: shapes with size-1 axes, broadcasts, movement chains,
// reductions, elementwise ops and matmuls, with inputs kept inside each op's domain.
#ifndef TG_TESTS_FUZZ_PROGRAM_GENERATOR_H_
#define TG_TESTS_FUZZ_PROGRAM_GENERATOR_H_

#include <cstdint>

#include "tests/fuzz/program.h"

namespace tg::fuzz {

struct GeneratorOptions {
  int max_steps = 12;       // operations after the first input (guards such as rescaling come on top)
  int64_t max_numel = 256;  // no intermediate grows past this, so one program runs in milliseconds
  int max_rank = 4;
};

// The same seed and options give the same program on every machine (std::mt19937_64 plus our own
// integer-only draws; no std:: distributions, whose output the standard leaves to the implementation).
Program GenerateProgram(uint64_t seed, const GeneratorOptions& options = {});

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_PROGRAM_GENERATOR_H_
