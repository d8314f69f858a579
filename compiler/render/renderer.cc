#include "compiler/render/renderer.h"

#include "compiler/render/c_renderer.h"

namespace tg::compiler {

const Renderer* RendererForDialect(std::string_view dialect) {
  static const CRenderer* c = new CRenderer();
  if (dialect == c->dialect()) return c;
  return nullptr;
}

}  // namespace tg::compiler
