// LlvmRenderer: the "llvm-ir" dialect: LLVM IR text with the "c" dialect's calling convention.
// The render step (docs/architecture.md) for CPU plugins that JIT LLVM IR; we write text and never link LLVM.
#ifndef TG_COMPILER_RENDER_LLVM_RENDERER_H_
#define TG_COMPILER_RENDER_LLVM_RENDERER_H_

#include <string>
#include <vector>

#include "compiler/render/renderer.h"
#include "ir/dtype.h"

namespace tg::compiler {

// One module per kernel: `i32 @name(ptr %dispatch, ptr %workgroup)` (tg_c_kernel_fn) reads the buffer
// pointers and group ids from the structs laid out in tg_plugin.h and calls an internal, always-inlined
// body whose buffer parameters are `noalias` (C's restrict). Loops are blocks with a phi counter,
// accumulators are allocas (LLVM's -O2 promotes both), vectors are LLVM vectors and comparison masks
// <N x i1>. Numerics follow the C renderer: no fast-math flags; MULACC is llvm.fmuladd (C lets the
// compiler contract a*b+c); half types do math in float.
class LlvmRenderer : public Renderer {
 public:
  std::string_view dialect() const override { return "llvm-ir"; }
  bool NativeTranscendental(Ops op, DType dtype, bool vectorized) const override {
    return CpuNativeTranscendental(op, dtype, vectorized);
  }
  bool has_local() const override { return false; }
  bool has_vectors() const override { return true; }
  bool has_masked_vectors() const override { return true; }
  bool VectorAlu(Ops op, DType operand, DType result) const override { return CpuVectorAlu(op, operand, result); }
  std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const override;
};

// LLVM spelling of a value of |dtype| ("float", "<16 x float>", "i1" for bool) and of its storage in
// memory (bool is one byte, "i8").
std::string LlvmType(DType dtype);
std::string LlvmMemType(DType dtype);

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_LLVM_RENDERER_H_
