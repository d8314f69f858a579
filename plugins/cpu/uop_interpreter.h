// uop_interpreter.h: runs a parsed tg-uops program, one workgroup per call, with the c dialect's calling
// convention (DEFINE_GLOBAL i is dispatch->buffers[i], DEFINE_VAR i is (int32_t)dispatch->scalars[i],
// SPECIAL gidxN is workgroup->group_id[N]). The program is translated once into steps over registers:
// uniform values in 8-byte slots, the lane loops' values (lane_loops.h) in registers of kLanes lanes,
// both in one per-thread scratch area, so a run allocates nothing.
#ifndef TG_PLUGINS_CPU_UOP_INTERPRETER_H_
#define TG_PLUGINS_CPU_UOP_INTERPRETER_H_

#include <memory>
#include <string_view>
#include <vector>

#include "plugins/abi/tg_plugin.h"
#include "plugins/cpu/lane_ops.h"
#include "plugins/cpu/uop_program.h"

namespace tg_cpu::uops {

enum class StepKind : uint8_t {
  kConst, kBuffer, kVar, kSpecial,  // a uniform slot from the program or the launch
  kAlu,                             // alu(dst, a, b, c, lanes)
  kCopy,                            // |bytes| from a to dst (an accumulator's init or update)
  kSplat,                           // kLanes copies of a uniform |bytes| value
  kLoad, kStore,                    // one element: a buffer slot, b index, c gate (or none), dst the value
  kLoadLanes, kStoreLanes,          // the same for the lanes of a block
  kRange, kEnd,                     // a uniform loop: dst the counter, a the bound
  kLaneBegin, kLaneEnd,             // a lane loop: dst the lane-index register, a the bound
};

struct Step {
  static constexpr uint32_t kNone = UINT32_MAX;
  StepKind kind;
  bool lanes = false;         // kAlu over a block, not one value
  bool stride1 = false;       // kLoadLanes / kStoreLanes: the index counts up by one per lane
  uint8_t bytes = 0;          // element size
  DType index = DType::ki32;  // memory steps: the index's dtype
  uint32_t dst = kNone, a = kNone, b = kNone, c = kNone;  // scratch offsets
  uint32_t jump = 0;          // loops: the step to go to
  int64_t imm = 0;            // kConst bits, kBuffer / kVar slot, kSpecial dimension
  AluFn alu = nullptr;
  GatherFn gather = nullptr;
  ScatterFn scatter = nullptr;
};

class UopKernel {
 public:
  // Parses and translates |text|; INVALID_ARGUMENT as ParseProgram.
  static tg_error* Build(std::string_view text, std::unique_ptr<UopKernel>* out);

  const std::string& entry() const { return program_.entry; }
  // The launch passes enough buffers and scalars for the program's parameters.
  uint32_t buffers_needed() const { return buffers_needed_; }
  uint32_t scalars_needed() const { return scalars_needed_; }
  // Which loops run over lanes (for tests and DEBUG): the RANGE lines.
  const std::vector<int32_t>& lane_loops() const { return lane_loops_; }

  // Runs one workgroup on the calling thread; returns 0.
  int32_t Run(const tg_c_dispatch_state* dispatch, const tg_c_workgroup_state* workgroup) const;

 private:
  Program program_;
  std::vector<Step> steps_;
  std::vector<int32_t> lane_loops_;
  size_t scratch_bytes_ = 0;
  uint32_t buffers_needed_ = 0, scalars_needed_ = 0;

  friend class StepBuilder;
};

}  // namespace tg_cpu::uops

#endif  // TG_PLUGINS_CPU_UOP_INTERPRETER_H_
