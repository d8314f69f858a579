// WgslRenderer: the "wgsl" dialect: a WebGPU compute shader per kernel.
// The render step (docs/architecture.md) for a WebGPU device; no runtime here, so tests check it as text (goldens).
#ifndef TG_COMPILER_RENDER_WGSL_RENDERER_H_
#define TG_COMPILER_RENDER_WGSL_RENDERER_H_

#include <string>
#include <vector>

#include "compiler/render/renderer.h"
#include "ir/dtype.h"

namespace tg::compiler {

// Buffer i is `@group(0) @binding(i)`, a storage array (read_write when the kernel stores to it, else
// read); the entry point `@compute @workgroup_size(x, y, z) fn <name>` takes workgroup_id and
// local_invocation_id, its size coming from the kernel's LOCAL launch dims (lidx extents). WGSL has
// no 64-bit or sub-word types in storage (f16 needs an extension): kernels using int64/float64/bool/
// int8/int16/float16 buffers or values throw tg::Error. Scalar only (GPU kernels are not vectorized).
class WgslRenderer : public Renderer {
 public:
  std::string_view dialect() const override { return "wgsl"; }
  std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const override;
};

// WGSL spelling of a value type ("f32", "i32", "u32", "bool"); throws for types WGSL lacks.
std::string WgslType(DType dtype);

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_WGSL_RENDERER_H_
