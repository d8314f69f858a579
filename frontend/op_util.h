// Helpers shared by the high-level tensor ops (tensor_shape/index/gather/conv/pool/sort/einsum.cc):
// constants of any dtype, padding with a value, one-hot masks and tinygrad's sliding-window _pool.
// Private to the front end; every op here is composed from the primitive movement/ALU/REDUCE UOps.
#ifndef TG_FRONTEND_OP_UTIL_H_
#define TG_FRONTEND_OP_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "frontend/tensor.h"

namespace tg {

using Pads = std::vector<std::pair<int64_t, int64_t>>;

// |value| of |dtype| broadcast to |shape| on |device| (no memory behind it).
Tensor ConstTensor(ConstValue value, DType dtype, const Shape& shape, const std::string& device);
// A 0-d constant |value| in |t|'s dtype and device: broadcasts against anything (e.g. mask.where(x, ZeroOf(x))).
Tensor ValueOf(const Tensor& t, ConstValue value);
// The smallest / largest value of |t|'s dtype (-inf / +inf for floats), as a 0-d constant.
Tensor DTypeMinLike(const Tensor& t);
Tensor DTypeMaxLike(const Tensor& t);
// Constant padding with any value of the dtype, including its extremes (Scalar would round int64).
Tensor PadWith(const Tensor& t, const Pads& pads, ConstValue value);
// [0, n) as int32 along |axis| of a rank-|rank| tensor (other axes size 1).
Tensor AxisArange(int64_t n, int64_t axis, int64_t rank, const std::string& device);
// idx == arange(n) along |dim| (counted like an axis of idx, negative from the end): a bool mask.
Tensor OneHotAlongDim(const Tensor& idx, int64_t n, int dim, const char* op);
// Sums over |axes| keeping |t|'s dtype (bool sums are ORs), as tinygrad's sum(dtype=self.dtype).
Tensor SumKeepDType(const Tensor& t, const std::vector<int>& axes, bool keepdim = false);
// Writes |values| (broadcast to |mask|) into |self| where |mask| holds, reducing the mask axes
// [a0, a0+n); several hits on one element: the last wins. Defined in tensor_index.cc.
Tensor MaskedMerge(const Tensor& self, const Tensor& values, const Tensor& mask, int64_t a0, int64_t n);
// |arg| of one value or one per spatial axis, expanded to |n| values.
std::vector<int64_t> PerAxis(const IntOrTuple& arg, size_t n, const char* op, const char* what);
// tinygrad's resolve_pool_pads: one value, one per axis, or PyTorch's flat order (last axis first),
// returned as (before, after) per spatial axis, first axis first.
Pads PoolPads(const IntOrTuple& padding, size_t n, const char* op);
// Sliding windows over the last k.size() axes: (..., *out, *k). tinygrad's _pool, only movement ops.
Tensor Pool(const Tensor& x, const std::vector<int64_t>& k, const std::vector<int64_t>& stride,
            const std::vector<int64_t>& dilation, const char* op);

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace tg

#endif  // TG_FRONTEND_OP_UTIL_H_
