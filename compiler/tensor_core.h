// TensorCore: one matrix instruction a device executes for a whole warp (wave) at once,
// D(m x n, accumulate) = A(m x k, input) * B(k x n, input) + C, and which element of which tile
// each lane holds. Codegen's TC opt (codegen/tensor_cores.h) lowers a matmul's reduce onto it; the
// renderer spells the instruction by |name|. The list of what each device has lives in
// TensorCoresFor, the one place these facts are written (cited from the vendors' ISA manuals).
#ifndef TG_COMPILER_TENSOR_CORE_H_
#define TG_COMPILER_TENSOR_CORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace tg::compiler {

// Where the bits of one coordinate of a fragment element come from, low bit first: kLane + i is bit
// i of the lane id, kElement + i bit i of the element's index in the lane's fragment. A lane bit
// that no coordinate of an operand uses means lanes holding copies (RDNA3's WMMA).
constexpr int8_t kLane = 0, kElement = 16;
using CoordinateBits = std::vector<int8_t>;

struct TensorCore {
  std::string name;             // what the renderer calls ("mma_m16n8k16_f16_f32")
  int m = 0, n = 0, k = 0;
  int threads = 32;             // lanes of the warp or wave that execute it together
  DType input = dtypes::float16, accumulate = dtypes::float32;
  CoordinateBits a_row, a_k;    // A's element (row, k)
  CoordinateBits b_k, b_col;    // B's element (k, col)
  CoordinateBits c_row, c_col;  // C's and D's element (row, col)

  // Elements a lane holds of A, B and C: 2 to the number of element bits in their coordinates.
  int a_elements() const;
  int b_elements() const;
  int c_elements() const;
  std::string str() const;      // "mma_m16n8k16_f16_f32 (16x8x16, half -> float, 32 lanes)"
};

// The matrix instructions this compiler uses on a device whose kernels are |dialect| for |arch|
// ("sm_90", "gfx90a"); empty where it uses none. On opencl-c, TC_EMULATE=<arch> ("sm_80", "gfx90a",
// "gfx1100") gives that arch's instructions taking float, which the renderer computes through local
// memory lane by lane as the hardware would: the lowering's layouts run, and are checked, on any
// OpenCL device (tinygrad's EMULATE_CUDA and EMULATE_AMD).
std::vector<TensorCore> TensorCoresFor(std::string_view dialect, std::string_view arch);
// The instruction named |name| (TensorCore::name), emulated ones included; nullptr for none.
const TensorCore* TensorCoreNamed(std::string_view name);
// What TensorCoresFor knows, for messages.
std::string TensorCoreSupportSummary();

}  // namespace tg::compiler

#endif  // TG_COMPILER_TENSOR_CORE_H_
