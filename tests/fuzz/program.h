// A random tensor program as plain data: a list of steps over float32 values, each naming its inputs by index.
// Differential testing runs ONE description through the compiler and through a float64 reference.
#ifndef TG_TESTS_FUZZ_PROGRAM_H_
#define TG_TESTS_FUZZ_PROGRAM_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tg::fuzz {

using Dims = std::vector<int64_t>;

enum class StepKind {
  kInput,       // dims, data
  kUnary,       // unary(a)
  kBinary,      // binary(a, b) with numpy broadcasting
  kConstBinary, // binary(a, constant)
  kWhere,       // where(cmp(a, b), c, d), all broadcast together
  kCompare,     // cmp(a, b) cast to float (0 or 1)
  kReshape, kPermute, kExpand, kPad, kShrink, kFlip,  // movement of a, arguments in ints/pairs
  kReduce,      // reduce(a) over ints (axes) with keepdim
  kMatmul,      // a @ b
  kContiguous,  // a forced into a buffer
};

enum class UnaryOp { kNeg, kExp, kLog, kSqrt, kRelu, kReciprocal, kSin, kSquare };
enum class BinaryOp { kAdd, kSub, kMul, kMaximum, kDiv };
enum class CompareOp { kLt, kGt, kEq, kNe };
enum class ReduceOp { kSum, kMax };

struct Step {
  StepKind kind = StepKind::kInput;
  std::vector<int> src;  // indices of earlier steps
  int op = 0;            // UnaryOp / BinaryOp / CompareOp / ReduceOp by kind
  double constant = 0;   // kConstBinary
  bool keepdim = false;  // kReduce
  std::vector<int64_t> ints;                          // new dims, permutation, expand dims, axes
  std::vector<std::pair<int64_t, int64_t>> pairs;     // pad (before, after) / shrink (start, stop)
  Dims dims;             // the result's shape (filled by the generator; checked by both evaluators)
  std::vector<float> data;  // kInput only
};

struct Program {
  uint64_t seed = 0;
  std::vector<Step> steps;
  std::vector<int> outputs;  // steps realized together (the last step is always one)
};

std::string DimsString(const Dims& d);  // "(2, 1, 3)"
// Human-readable listing that reproduces the program: one line per step in tg::Tensor spelling.
std::string ProgramString(const Program& p);
int64_t Numel(const Dims& d);

}  // namespace tg::fuzz

#endif  // TG_TESTS_FUZZ_PROGRAM_H_
