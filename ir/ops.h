// Ops: the one enum of operations every UOp names, grouped as in tinygrad, with the group predicates.
// Shared by every stage (docs/architecture.md): the tensor graph, kernels, and linearized programs use one op set.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tg {

enum class Ops : uint8_t {
  // storage / params; DEFINE_LOCAL(CONST n, arg=id) is an array of n elements of its dtype in the
  // memory a work group shares (GPU dialects), declared once per kernel
  kBuffer, kDefineGlobal, kDefineVar, kDefineAcc, kSpecial, kDefineLocal,
  // movement (tensor graph only)
  kReshape, kPermute, kExpand, kPad, kShrink, kFlip,
  // unary ALU
  kCast, kBitcast, kExp2, kLog2, kSin, kSqrt, kReciprocal, kNeg, kTrunc,
  // binary ALU
  kAdd, kMul, kIdiv, kMod, kFdiv, kMax, kCmpLt, kCmpNe, kCmpEq, kXor, kOr, kAnd, kShl, kShr, kThreefry,
  // ternary ALU
  kWhere, kMulAcc,
  // reduce, const; IOTA(arg n, tensor graph only) is the vector 0, 1, .., n-1 in its dtype, computed
  // where it is read (rangeify lowers it to its loop index), so arange costs no buffer and rules see it
  kReduce, kConst, kIota,
  // control
  kRange, kEnd, kIf, kEndIf, kBarrier,
  // memory
  kIndex, kLoad, kStore, kAssign,
  // vectors (codegen): VECTORIZE(lanes...) builds one, GEP(vector, arg=lane) reads a lane;
  // WMMA(a, b, c, arg=name) is a warp's matrix instruction on the lane's fragments (compiler/tensor_core.h)
  kVectorize, kGep, kWmma,
  // scheduler / structure
  kContiguous, kDetach, kCopy, kSink, kKernel, kNoop,
  // multi-device (tensor graph only; see ir/multi_arg.h): MULTI(shard per device) is one logical tensor
  // split along an axis (or replicated); ALLREDUCE(value per device) is their reduction as it lands on
  // one device. compiler/schedule/multi.cc turns MULTI graphs into per-device graphs with ALLREDUCEs,
  // compiler/schedule/allreduce.cc lowers those to copies and kernels.
  kMulti, kAllreduce,
  // symbolic values (tensor graph only): BIND(DEFINE_VAR, CONST value) is a variable bound to its value
  // for one realize. The scheduler keeps the value out of every cache key and passes it to the kernels
  // as an argument, so one kernel serves every value in the variable's range (docs/variables.md).
  // VAR_SHRINK(x, n, arg=axis) keeps x's storage and shape but makes only [0, n) of the axis present,
  // n an int32 expression of variables: reductions over the axis loop to n, stores skip the rest.
  kBind, kVarShrink,
};
inline constexpr int kNumOps = static_cast<int>(Ops::kVarShrink) + 1;

std::string_view OpName(Ops);  // "ADD", "RESHAPE", ...
bool IsUnary(Ops);
bool IsBinary(Ops);
bool IsTernary(Ops);
bool IsAlu(Ops);  // unary | binary | ternary
bool IsMovement(Ops);
bool IsCommutative(Ops);  // ADD MUL MAX CMPNE CMPEQ XOR OR AND
bool IsComparison(Ops);   // CMPLT CMPNE CMPEQ: result dtype bool
// Every op of a group, in enum order, for patterns over it: Pat::Ops_(OpsWhere(IsBinary), ...).
std::vector<Ops> OpsWhere(bool (*in_group)(Ops));

}  // namespace tg
