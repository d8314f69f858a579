// UopsRenderer: the "tg-uops" dialect (plugins/abi/tg_uops.h), a linearized kernel written out as text
// for a device that runs it without compiling it: the first execution tier (docs/tiers.md).
#ifndef TG_COMPILER_RENDER_UOPS_RENDERER_H_
#define TG_COMPILER_RENDER_UOPS_RENDERER_H_

#include "compiler/render/renderer.h"

namespace tg::compiler {

class UopsRenderer : public Renderer {
 public:
  std::string_view dialect() const override;
  // Throws tg::Error for what the dialect cannot say: vector dtypes, local memory, launch ids other
  // than group ids, matrix instructions. The first tier's target asks for none of them.
  std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const override;
  // The interpreter calls libm per lane, as a compiled kernel does for scalars.
  bool NativeTranscendental(Ops, DType, bool) const override { return true; }
  bool has_local() const override { return false; }
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_UOPS_RENDERER_H_
