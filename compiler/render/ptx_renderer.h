// PtxRenderer: the "ptx" dialect: NVIDIA PTX assembly text for one sm_XX target.
// The render step (docs/architecture.md) for the CUDA plugin's ptx path (checked with ptxas in tests/compiler).
#ifndef TG_COMPILER_RENDER_PTX_RENDERER_H_
#define TG_COMPILER_RENDER_PTX_RENDERER_H_

#include <string>
#include <vector>

#include "compiler/render/renderer.h"

namespace tg::compiler {

// One `.visible .entry |name|` whose parameters follow cuda-c (tg_plugin.h): one .u64 global pointer per
// buffer, in order. Launch ids are %ctaid / %tid. Values live in virtual registers (ptxas allocates);
// loops are labels and branches; gated loads and stores are predicated. Scalar only (the GPU dialects
// are not vectorized). Numerics follow CUDA C's defaults: IEEE div/sqrt/rcp (.rn), a*b+c may fuse
// (fma, as nvcc's --fmad=true), exp2/log2/sin use the .approx instructions (CUDA's fast-math ones; about
// 2 ulp, and sin loses accuracy far from [-pi, pi]). float64 exp2/log2/sin have no PTX instruction:
// codegen gives them as polynomials (NativeTranscendental); rendering one throws. float16 lives in .b16
// registers: add/mul/fma/neg/compares natively from sm_53, the other math in float32 rounded back
// (exact; see NativeHalf in the .cc). DEFINE_LOCAL is a .shared array, BARRIER bar.sync 0, so GROUP
// reduces render. bfloat16 is not supported yet (codegen computes it in float32, but its loads,
// stores and casts are not spelled).
class PtxRenderer : public Renderer {
 public:
  // |arch| "sm_90" (default when empty or not of that form); it selects .target and the PTX ISA version.
  explicit PtxRenderer(std::string arch = "sm_90");
  std::string_view dialect() const override { return "ptx"; }
  // PTX has ex2/lg2/sin.approx for f32 only: f64 (and half, via f32) run as polynomials.
  bool NativeTranscendental(Ops op, DType dtype, bool vectorized) const override {
    return dtype.base() == dtypes::float32;
  }
  // Local arrays in .shared and bar.sync: GROUP and GROUPTOP reduce through them as on cuda-c.
  bool has_shared_memory() const override { return true; }
  const std::string& arch() const { return arch_; }
  std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const override;

 private:
  std::string arch_;
  int sm_ = 90;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_PTX_RENDERER_H_
