// CRenderer: the "c" dialect of CPU plugins (calling convention in plugins/abi/tg_plugin.h).
// One function per kernel, called once per workgroup with the group id; buffers come in an array.
#ifndef TG_COMPILER_RENDER_C_RENDERER_H_
#define TG_COMPILER_RENDER_C_RENDERER_H_

#include "compiler/render/c_style.h"

namespace tg::compiler {

class CRenderer : public CStyleRenderer {
 public:
  std::string_view dialect() const override { return "c"; }
  // libm per lane stops a float32 vector; the polynomials keep it whole. Scalars and float64
  // (whose vector selects the vectorizer does not make) keep libm.
  bool NativeTranscendental(Ops op, DType dtype, bool vectorized) const override;
  bool has_local() const override { return false; }
  bool has_vectors() const override { return true; }
  bool VectorAlu(Ops op, DType operand, DType result) const override { return CpuVectorAlu(op, operand, result); }

 protected:
  std::string Prelude() const override;
  std::string KernelPrefix(const std::string& name, const KernelParams& params) const override;
  std::string KernelSuffix() const override;
  std::string SpecialExpr(const std::string& special_name) const override;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_C_RENDERER_H_
