#include "compiler/render/renderer.h"

#include <map>
#include <memory>
#include <mutex>

#include "compiler/render/c_renderer.h"
#include "compiler/render/gpu_renderers.h"
#include "compiler/render/llvm_renderer.h"
#include "compiler/render/ptx_renderer.h"
#include "compiler/render/wgsl_renderer.h"

namespace tg::compiler {
namespace {

// One PtxRenderer per target architecture, made on first use and kept for the process.
const Renderer* PtxFor(std::string_view arch) {
  static std::mutex mu;
  static auto* by_arch = new std::map<std::string, std::unique_ptr<PtxRenderer>, std::less<>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = by_arch->find(arch);
  if (it == by_arch->end()) it = by_arch->emplace(std::string(arch), std::make_unique<PtxRenderer>(std::string(arch))).first;
  return it->second.get();
}

}  // namespace

bool CpuNativeTranscendental(Ops op, DType dtype, bool vectorized) {
  return !vectorized || op == Ops::kSin || dtype.base() == dtypes::float64;
}

const Renderer* RendererForDialect(std::string_view dialect, std::string_view arch) {
  static const Renderer* const kRenderers[] = {new CRenderer(),        new LlvmRenderer(),
                                               new OpenClRenderer(),   new CudaRenderer("cuda-c"),
                                               new CudaRenderer("hip-c"), new WgslRenderer()};
  if (dialect == "ptx") return PtxFor(arch);
  for (const Renderer* r : kRenderers)
    if (r->dialect() == dialect) return r;
  return nullptr;
}

}  // namespace tg::compiler
