// Tensor cores: a matmul's reduce, sum over k of a(m, k) * b(k, n) in half or bfloat16 accumulated
// in float, computed a tile at a time by a matrix instruction of the whole warp (compiler/
// tensor_core.h). The TC opt (Kernel::Apply) splits the m, n and k axes by the tile's sizes; the
// lowering here gives each lane its fragments: the tile's axes become the lane id and the element
// index of each operand, a WMMA op takes the fragments, and each of the lane's output elements is
// stored where the accumulator layout puts it.
#ifndef TG_COMPILER_CODEGEN_TENSOR_CORES_H_
#define TG_COMPILER_CODEGEN_TENSOR_CORES_H_

#include <optional>
#include <vector>

#include "compiler/tensor_core.h"
#include "ir/uop.h"

namespace tg::compiler {

// a and b of a reduce that |tc| computes: a sum in its accumulate dtype of a * b, a and b of its
// input dtype, multiplied in it or widened first (and the product maybe rounded to the input dtype
// before the sum widens it); nullopt otherwise.
struct MatmulOperands {
  UOpRef a, b;
};
std::optional<MatmulOperands> MatchTensorCoreReduce(const UOp& reduce, const TensorCore& tc);

struct TensorCoreLowering {
  UOpRef sink;
  UOpRef lane;  // the warp's lane id: a LOCAL range of tc.threads, the innermost launch dimension
};

// |sink| with its reduce over |tile| (the tile's m, n and k ranges, in any order) done by |tc|.
TensorCoreLowering LowerTensorCore(const UOpRef& sink, const TensorCore& tc, const std::vector<UOpRef>& tile);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_TENSOR_CORES_H_
