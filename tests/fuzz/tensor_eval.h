// Runs a fuzz::Program through tg::Tensor on one device: the whole compiler path (docs/architecture.md).
// The other side of differential testing; reference_eval.h is the float64 truth it is compared with.
#ifndef TG_TESTS_FUZZ_TENSOR_EVAL_H_
#define TG_TESTS_FUZZ_TENSOR_EVAL_H_

#include <string>
#include <vector>

#include "tests/fuzz/program.h"

namespace tg::fuzz {

// The program's outputs (in program.outputs order), realized together on |device| and read back as float32.
// Throws tg::Error when the front end, compiler or device fails, and std::logic_error when a result's shape
// differs from the one the generator recorded.
std::vector<std::vector<float>> RunOnDevice(const Program& program, const std::string& device);

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_TENSOR_EVAL_H_
