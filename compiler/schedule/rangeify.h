// Rangeify: turns one kernel's tensor graph into index math over RANGE loop variables.
// Step "schedule -> kernel AST" of the walk in docs/architecture.md; movement ops become index expressions.
#ifndef TG_COMPILER_SCHEDULE_RANGEIFY_H_
#define TG_COMPILER_SCHEDULE_RANGEIFY_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/pattern_matcher.h"
#include "ir/uop.h"

namespace tg::compiler {

// State shared by the rules while one kernel is lowered: loop variables and kernel parameters.
class KernelBuilder {
 public:
  explicit KernelBuilder(DType index_dtype) : index_dtype_(index_dtype) {}

  DType index_dtype() const { return index_dtype_; }
  UOpRef IndexConst(int64_t value) const { return UOp::Const(index_dtype_, value); }
  // A fresh loop variable over [0, extent); ids count up from 0 per kernel, so equal kernels
  // render to equal source and hit the program cache.
  UOpRef NewRange(int64_t extent);
  // A loop variable over [0, length), |length| index math of variables (a symbolic axis). Numbered
  // apart from the others: codegen leaves such loops as they are (no opt splits a length it cannot read).
  UOpRef NewSymbolicRange(const UOpRef& length);
  static constexpr int64_t kFirstSymbolicRangeId = 3000000;
  // The DEFINE_GLOBAL of |buffer| (a BUFFER node), numbered in order of first use.
  UOpRef Param(const UOpRef& buffer);
  const std::vector<UOpRef>& buffers() const { return buffers_; }

 private:
  DType index_dtype_;
  int64_t next_range_id_ = 0;
  int64_t next_symbolic_range_id_ = kFirstSymbolicRangeId;
  std::vector<UOpRef> buffers_;
  absl::flat_hash_map<int64_t, UOpRef> param_of_buffer_;
};

// Rules that push INDEX(tensor, i0..in-1, gate) down through every tensor op until only loads of
// buffers remain. The value of the tensor at that index is what the rewritten node computes.
const PatternMatcher& PushIndexRules();

// Kernel AST that stores |root| (a tensor-graph node whose sources are BUFFER views or
// fusable ops) into |output| (a BUFFER node of root's numel):
// SINK(STORE(INDEX(out, lin), value), DEFINE_GLOBAL...) with every parameter listed after the store.
UOpRef BuildKernelAst(const UOpRef& root, const UOpRef& output, KernelBuilder& builder);

// Row-major linear offset of |idx| in |shape|, and its inverse.
UOpRef Flatten(const std::vector<UOpRef>& idx, const Shape& shape, const KernelBuilder& builder);
std::vector<UOpRef> Unflatten(const UOpRef& linear, const Shape& shape,
                              const KernelBuilder& builder);

}  // namespace tg::compiler

#endif  // TG_COMPILER_SCHEDULE_RANGEIFY_H_
