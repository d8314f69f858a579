#include "compiler/render/kernel_params.h"

namespace tg::compiler {

KernelParams ScanParams(const std::vector<UOpRef>& ops) {
  KernelParams p;
  for (const UOpRef& u : ops) {
    if (u->op() != Ops::kDefineGlobal) continue;
    size_t slot = static_cast<size_t>(u->arg_as<int64_t>());
    if (p.buffers.size() <= slot) p.buffers.resize(slot + 1), p.written.resize(slot + 1);
    p.buffers[slot] = u;
  }
  // A STORE's first source is INDEX(DEFINE_GLOBAL or DEFINE_LOCAL, ...); only the first is a parameter.
  for (const UOpRef& u : ops)
    if (u->op() == Ops::kStore && u->src(0)->src(0)->op() == Ops::kDefineGlobal)
      p.written[u->src(0)->src(0)->arg_as<int64_t>()] = true;
  return p;
}

}  // namespace tg::compiler
