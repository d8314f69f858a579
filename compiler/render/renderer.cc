#include "compiler/render/renderer.h"

#include "compiler/render/c_renderer.h"
#include "compiler/render/gpu_renderers.h"

namespace tg::compiler {

const Renderer* RendererForDialect(std::string_view dialect) {
  static const Renderer* const kRenderers[] = {
      new CRenderer(), new OpenClRenderer(), new CudaRenderer("cuda-c"), new CudaRenderer("hip-c")};
  for (const Renderer* r : kRenderers)
    if (r->dialect() == dialect) return r;
  return nullptr;
}

}  // namespace tg::compiler
