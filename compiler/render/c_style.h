// CStyleRenderer: the shared body of every C-like dialect (c, opencl-c, cuda-c, hip-c).
// A dialect overrides the hooks (kernel signature, launch ids, type names); expressions are common.
#ifndef TG_COMPILER_RENDER_C_STYLE_H_
#define TG_COMPILER_RENDER_C_STYLE_H_

#include <string>
#include <vector>

#include "compiler/render/kernel_params.h"
#include "compiler/render/renderer.h"
#include "ir/dtype.h"
#include "ir/uop.h"

namespace tg::compiler {

class CStyleRenderer : public Renderer {
 public:
  std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const override;

  // C spelling of a scalar type ("float", "int64_t", "_Bool").
  virtual std::string TypeName(DType dtype) const;
  // A constant of |dtype| as a literal expression.
  std::string Literal(const UOpRef& constant) const;
  std::string FloatLiteral(double v, DType dtype) const;
  std::string IntLiteral(int64_t v, DType dtype) const;

 protected:
  // Includes and declarations every kernel of the dialect starts with, including the bfloat16
  // conversion helpers tg_bf16_to_f32 / tg_f32_to_bf16 (round to nearest even).
  virtual std::string Prelude() const = 0;
  // Dialect extensions a kernel's ops need (OpenCL's cl_khr_fp16 for half), after the prelude.
  virtual std::string Extensions(const std::vector<UOpRef>& ops) const { return ""; }
  // The text before the kernel body after the prelude: signature and opening brace.
  // |params| are the buffers (DEFINE_GLOBALs) in parameter order, which are stored to, and the
  // variables that follow them, each named KernelParams::VariableName(i).
  virtual std::string KernelPrefix(const std::string& name, const KernelParams& params) const = 0;
  virtual std::string KernelSuffix() const = 0;
  // Expression of a launch id SPECIAL such as "gidx0".
  virtual std::string SpecialExpr(const std::string& special_name) const = 0;
  // Infinity or NaN of a float type (C has INFINITY/NAN; NVRTC has no math.h).
  virtual std::string SpecialFloat(double v, DType dtype) const;
  // The bits of |x| (of |from|) read as |to|.
  virtual std::string Bitcast(DType from, DType to, const std::string& x) const;
  std::string Zero(DType dtype) const;
  // Expression of a unary math function (exp2, log2, sin, sqrt, trunc) on |x| of |dtype|.
  virtual std::string MathCall(std::string_view fn, DType dtype, const std::string& x) const;
  // The declaration of |name|, an array of |count| |dtype| in a group's shared memory, and the
  // statement after which every work item of the group sees the others' stores to it.
  virtual std::string LocalArray(DType dtype, const std::string& name, int64_t count) const;
  virtual std::string Barrier() const;
  // A vector of |dtype| from its lanes' expressions (GCC: a compound literal).
  virtual std::string VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const;
  // A vector of |dtype| with |scalar| (of |dtype|'s lane type) in every lane.
  virtual std::string Broadcast(DType dtype, const std::string& scalar) const;
  // A warp's matrix instruction (WMMA) on the fragments |args| (a, b, c).
  virtual std::string MatrixCall(const UOpRef& wmma, const std::vector<std::string>& args) const;
  // Declarations at the kernel's top scope that the dialect's helpers for |ops| need (local arrays).
  virtual std::string KernelScopeArrays(const std::vector<UOpRef>& ops) const { return ""; }
  // Lane |lane| of |vector| (a GEP's operand).
  virtual std::string LaneExpr(const UOpRef& gep, const std::string& vector) const;
  // The vector of |dtype| at |buf| + |index| elements, as an lvalue (a vector load's or store's target).
  virtual std::string VectorAt(DType dtype, const std::string& buf, const std::string& index) const;

  std::string AluExpr(const UOpRef& u, const std::vector<std::string>& args) const;
  // GCC vector extension types ("tg_float_16") and the ops the vectorizer leaves as vectors.
  std::string VectorTypeName(DType dtype) const;
  virtual std::string VectorTypedefs(const std::vector<UOpRef>& ops) const;
  std::string VectorAluExpr(const UOpRef& u, const std::vector<std::string>& args) const;
  // |load| (a vector) of |buf|[|index|...] where the lanes of |mask| are on; the others read 0.
  std::string MaskedLoad(const UOpRef& load, const std::string& buf, const std::string& index,
                         const std::string& mask) const;
  // A statement storing |value| (a vector) to |buf|[|index|...] where the lanes of |mask| are on.
  std::string MaskedStore(DType vector, const std::string& buf, const std::string& index, const std::string& mask,
                          const std::string& value) const;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_C_STYLE_H_
