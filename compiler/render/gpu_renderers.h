// Renderers of the GPU dialects: opencl-c, cuda-c and hip-c (calling convention: tg_plugin.h).
// The body is CStyleRenderer's; these give the kernel signature, launch ids and type spellings.
#ifndef TG_COMPILER_RENDER_GPU_RENDERERS_H_
#define TG_COMPILER_RENDER_GPU_RENDERERS_H_

#include "compiler/render/c_style.h"

namespace tg::compiler {

// OpenCL C 1.2: __kernel with __global buffer pointers; ids from get_group_id/get_local_id.
class OpenClRenderer : public CStyleRenderer {
 public:
  std::string_view dialect() const override { return "opencl-c"; }
  bool half_needs_extension() const override { return true; }
  bool has_shared_memory() const override { return true; }
  bool has_vector_memory() const override { return true; }
  std::string TypeName(DType dtype) const override;  // vectors: float4, half8, ...

 protected:
  std::string Prelude() const override;
  std::string Extensions(const std::vector<UOpRef>& ops) const override;
  std::string VectorTypedefs(const std::vector<UOpRef>& ops) const override { return ""; }
  std::string VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const override;
  std::string LaneExpr(const UOpRef& gep, const std::string& vector) const override;
  std::string VectorAt(DType dtype, const std::string& buf, const std::string& index) const override;
  std::string Broadcast(DType dtype, const std::string& scalar) const override;
  // Emulated tensor cores (TC_EMULATE): a helper per instruction, and the tiles it gathers in local memory.
  std::string MatrixCall(const UOpRef& wmma, const std::vector<std::string>& args) const override;
  std::string KernelScopeArrays(const std::vector<UOpRef>& ops) const override;
  std::string KernelPrefix(const std::string& name, const KernelParams& params) const override;
  std::string KernelSuffix() const override { return "}\n"; }
  std::string SpecialExpr(const std::string& special_name) const override;
  std::string MathCall(std::string_view fn, DType dtype, const std::string& x) const override;
  std::string Bitcast(DType from, DType to, const std::string& x) const override;
  std::string LocalArray(DType dtype, const std::string& name, int64_t count) const override;
  std::string Barrier() const override { return "barrier(CLK_LOCAL_MEM_FENCE);"; }
};

// CUDA C++ for NVRTC ("cuda-c") and HIP C++ for hiprtc ("hip-c"): extern "C" __global__ with
// blockIdx/threadIdx. No system headers: NVRTC compiles without them.
class CudaRenderer : public CStyleRenderer {
 public:
  explicit CudaRenderer(std::string dialect) : dialect_(std::move(dialect)) {}
  std::string_view dialect() const override { return dialect_; }
  bool has_shared_memory() const override { return true; }
  bool has_vector_memory() const override { return true; }
  std::string TypeName(DType dtype) const override;

 protected:
  std::string Prelude() const override;
  std::string KernelPrefix(const std::string& name, const KernelParams& params) const override;
  std::string KernelSuffix() const override { return "}\n"; }
  std::string SpecialExpr(const std::string& special_name) const override;
  std::string SpecialFloat(double v, DType dtype) const override;
  std::string Bitcast(DType from, DType to, const std::string& x) const override;
  std::string LocalArray(DType dtype, const std::string& name, int64_t count) const override;
  std::string Barrier() const override { return "__syncthreads();"; }
  // Vectors are tg_vec<T, N> (an array with operator[]): the fragments of matrix instructions. No
  // ALU runs on them; the vectorizer makes none for these dialects.
  std::string Extensions(const std::vector<UOpRef>& ops) const override;
  std::string VectorTypedefs(const std::vector<UOpRef>& ops) const override { return ""; }
  std::string VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const override;
  std::string Broadcast(DType dtype, const std::string& scalar) const override;
  std::string MatrixCall(const UOpRef& wmma, const std::vector<std::string>& args) const override;

 private:
  std::string dialect_;
};

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_GPU_RENDERERS_H_
