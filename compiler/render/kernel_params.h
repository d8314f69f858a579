// KernelParams: a linearized kernel's buffer parameters, as every renderer declares them.
#ifndef TG_COMPILER_RENDER_KERNEL_PARAMS_H_
#define TG_COMPILER_RENDER_KERNEL_PARAMS_H_

#include <string>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

struct KernelParams {
  std::vector<UOpRef> buffers;  // the DEFINE_GLOBALs by slot (their arg), which is parameter order
  std::vector<bool> written;    // per slot: some STORE writes through it (else it may be declared read-only)
  // The DEFINE_VARs, by name: 32-bit integer parameters after the buffers, in this order (the order
  // compiler/schedule/bound_variables.h gives a launch their values in).
  std::vector<UOpRef> variables;
  // The parameter name a renderer gives variables[i] ("var0", ...): the variable's own name may
  // not be an identifier.
  static std::string VariableName(size_t i) { return "var" + std::to_string(i); }
  // The position of |variable| in |variables|.
  size_t VariableSlot(const UOpRef& variable) const;
};

// The parameters of |ops| (compiler/linearize.h order).
KernelParams ScanParams(const std::vector<UOpRef>& ops);

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_KERNEL_PARAMS_H_
