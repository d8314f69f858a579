// Opt: one optimization step on a kernel's loops (tinygrad's Opt), and the roles loops can have.
// Chosen by the heuristic or BEAM search and applied by Kernel::Apply (DESIGN §5).
#ifndef TG_COMPILER_CODEGEN_OPT_H_
#define TG_COMPILER_CODEGEN_OPT_H_

#include <cstdint>
#include <string>

namespace tg::compiler {

// What a loop variable of a kernel becomes in the generated code.
enum class AxisType : uint8_t {
  kGlobal,  // a workgroup id (SPECIAL gidx)
  kLocal,   // a work-item id inside a group (SPECIAL lidx; GPU dialects)
  kLoop,    // an output loop
  kReduce,  // a reduction loop
  kUpcast,  // an output loop expanded in registers (vectorized or unrolled)
  kUnroll,  // a reduction loop expanded in registers
};

enum class OptOp : uint8_t {
  kUpcast,  // split an output axis; the inner part is expanded (vectors / unrolled copies)
  kUnroll,  // split a reduce axis; the inner part is expanded
  kLocal,   // split an output axis; the inner part runs as work items of a group
  kThread,  // split the global axis; the inner part loops inside each group, so each workgroup
            // (one unit of a CPU thread's work) is big enough to pay for its dispatch
};

struct Opt {
  OptOp op;
  int axis;        // index into Kernel::axes()
  int64_t amount;  // the inner extent; must divide the axis
  std::string str() const;
  friend bool operator==(const Opt&, const Opt&) = default;
};

std::string AxisTypeName(AxisType type);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_OPT_H_
