// Kernel: a kernel AST being optimized, with the role (AxisType) of each of its loops.
// Opts split loops here; expander, vectorizer and gpudims then lower the roles (docs/architecture.md).
#ifndef TG_COMPILER_CODEGEN_KERNEL_H_
#define TG_COMPILER_CODEGEN_KERNEL_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/opt.h"
#include "compiler/tensor_core.h"
#include "ir/uop.h"

namespace tg::compiler {

// What GROUP and GROUPTOP may use: local memory shared by a group's work items and how many work
// items a group may have. |refusal| says why a target has none (empty where it has some).
struct GroupLimits {
  uint64_t local_bytes = 0;
  int max_threads = 1;
  std::string refusal = "the target has no local memory";
};

class Kernel {
 public:
  struct Axis {
    UOpRef range;
    AxisType type;
    int64_t extent() const { return range->src(0)->const_int(); }
  };

  // |ast| is a SINK of STOREs from rangeify. The first |global_dims| output loops start as
  // kGlobal (CPU: 1, the axis split over threads; GPU: up to 3 grid dimensions), the other output
  // loops as kLoop, reduce loops as kReduce.
  // |tensor_cores| are the target's matrix instructions, which the TC opt may use;
  // |no_tensor_cores| says why there are none.
  explicit Kernel(const UOpRef& ast, int global_dims = 1, GroupLimits group_limits = {},
                  std::vector<TensorCore> tensor_cores = {}, std::string no_tensor_cores = "");

  const UOpRef& ast() const { return ast_; }
  const std::vector<Axis>& axes() const { return axes_; }
  const std::vector<Opt>& applied() const { return applied_; }
  std::vector<UOpRef> RangesOf(AxisType type) const;
  // The REDUCE op whose loops include |range| (its reduce axis, or that axis's UNROLL), or nullptr.
  const UOp* ReduceOf(const UOpRef& range) const;

  // Applies |opt| or throws tg::Error saying why it is illegal (no such axis, wrong kind of
  // axis, amount does not divide the extent, padding that more than quadruples the work, a group
  // reduce without local memory, blocks of a reduce that is not the stored sum itself).
  void Apply(const Opt& opt);
  std::string AxesString() const;  // "[GLOBAL:8, LOOP:64, REDUCE:576]"
  // Work items a group has: its LOCAL and GROUP_REDUCE extents, times a tensor core's lanes.
  int64_t GroupThreads() const;
  // The tensor core the TC opt chose, or nullptr.
  const TensorCore* tensor_core() const { return tensor_core_ < 0 ? nullptr : &tensor_cores_[tensor_core_]; }

  // How far apart consecutive values of |range| put the index of |index_expr| (an int
  // expression), or nullopt when that distance is not one constant.
  static std::optional<int64_t> Stride(const UOpRef& index_expr, const UOpRef& range);

 private:
  // Splits axis |axis| into outer (extent / amount, same type) and inner (amount, |inner|); the
  // inner axis goes last in axes(). Loops are renumbered so ids follow axes() order.
  void Split(int axis, int64_t amount, AxisType inner);
  void Renumber();
  void PadTo(const Opt& opt);
  void Swap(const Opt& opt);
  void Block(const Opt& opt);
  void Group(const Opt& opt);
  void UseTensorCore(const Opt& opt);
  // Bytes of local memory |reduce|'s partials take with |threads| work items a group.
  uint64_t GroupReduceBytes(const UOp& reduce, int64_t threads) const;

  UOpRef ast_;
  GroupLimits group_limits_;
  std::vector<TensorCore> tensor_cores_;
  std::string no_tensor_cores_;
  int tensor_core_ = -1;
  std::vector<Axis> axes_;
  std::vector<Opt> applied_;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_KERNEL_H_
