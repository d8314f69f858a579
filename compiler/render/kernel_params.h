// KernelParams: a linearized kernel's buffer parameters, as every renderer declares them.
#ifndef TG_COMPILER_RENDER_KERNEL_PARAMS_H_
#define TG_COMPILER_RENDER_KERNEL_PARAMS_H_

#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

struct KernelParams {
  std::vector<UOpRef> buffers;  // the DEFINE_GLOBALs by slot (their arg), which is parameter order
  std::vector<bool> written;    // per slot: some STORE writes through it (else it may be declared read-only)
};

// The parameters of |ops| (compiler/linearize.h order).
KernelParams ScanParams(const std::vector<UOpRef>& ops);

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_KERNEL_PARAMS_H_
