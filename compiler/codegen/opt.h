// Opt: one optimization step on a kernel's loops (tinygrad's Opt), and the roles loops can have.
// Chosen by the heuristic or BEAM search and applied by Kernel::Apply (docs/architecture.md).
#ifndef TG_COMPILER_CODEGEN_OPT_H_
#define TG_COMPILER_CODEGEN_OPT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tg::compiler {

// What a loop variable of a kernel becomes in the generated code.
enum class AxisType : uint8_t {
  kGlobal,  // a workgroup id (SPECIAL gidx)
  kLocal,   // a work-item id inside a group (SPECIAL lidx; GPU dialects)
  kLoop,    // an output loop
  kReduce,  // a reduction loop
  kUpcast,  // an output loop expanded in registers (vectorized or unrolled)
  kUnroll,  // a reduction loop expanded in registers
  kBlock,   // the blocks of a reduction, looped outside the output loops (the BLOCK opt)
  kGroupReduce,  // a reduction split over a group's work items (SPECIAL lidx), partials combined in
                 // local memory after a barrier (GROUP / GROUPTOP; GPU dialects)
  kTensorCore,   // an m, n or k axis of a matrix instruction's tile (the TC opt)
};

enum class OptOp : uint8_t {
  kUpcast,  // split an output axis; the inner part is expanded (vectors / unrolled copies)
  kUnroll,  // split a reduce axis; the inner part is expanded
  kLocal,   // split an output axis; the inner part runs as work items of a group
  kThread,  // split the global axis; the inner part loops inside each group, so each workgroup
            // (one unit of a CPU thread's work) is big enough to pay for its dispatch
  kGroup,     // split a reduce axis over a group's work items, partials combined in local memory
  kGroupTop,  // the same with the work items taking the outer part of the axis
  kPadTo,     // grow an axis to a multiple of |amount|; the added iterations are masked off
  kSwap,      // exchange the loop positions of output axes |axis| and |amount| (each slot keeps
              // its role, so on the CPU this picks which axis is split over threads)
  kBlock,     // split a reduce axis into blocks of |amount|: the block loop runs outside the group's
              // output loops, each pass adding its block's sum to the stored output, so the operands
              // of one block stay cached while the outputs sweep them (K-blocking of a matmul)
  kTc,        // a matmul's reduce axis |axis| and its innermost m and n axes run as tiles of the
              // target's tensor core number |amount| (tinygrad's TC): the first opt of a kernel
};

struct Opt {
  OptOp op;
  int axis;        // index into Kernel::axes()
  int64_t amount;  // the inner extent (must divide the axis); PADTO: the multiple; SWAP: the other axis
  std::string str() const;
  friend bool operator==(const Opt&, const Opt&) = default;
};

std::string AxisTypeName(AxisType type);
std::string OptOpName(OptOp op);                          // "UPCAST", ..., "SWAP"
std::optional<OptOp> OptOpFromName(std::string_view name);  // nullopt for an unknown name

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_OPT_H_
