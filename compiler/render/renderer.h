// Renderer: turns a linearized kernel into source text in one dialect a device accepts.
// The last compiler step of the walk in docs/architecture.md before runtime/program_cache; one subclass per dialect.
#ifndef TG_COMPILER_RENDER_RENDERER_H_
#define TG_COMPILER_RENDER_RENDERER_H_

#include <string>
#include <string_view>
#include <vector>

#include "ir/uop.h"

namespace tg::compiler {

class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string_view dialect() const = 0;
  // Source of one kernel named |name| whose body is |ops| (compiler/linearize.h order).
  virtual std::string Render(const std::string& name, const std::vector<UOpRef>& ops) const = 0;
  // Whether the dialect should compute |op| (EXP2, LOG2 or SIN) of scalar type |dtype| with its own
  // function; |vectorized| says the value is a SIMD vector of the CPU vectorizer. When not, codegen
  // rewrites the op as polynomials of + * and bit operations (compiler/codegen/transcendental.h).
  virtual bool NativeTranscendental(Ops op, DType dtype, bool vectorized) const { return true; }
  // Whether work items run in groups of threads with local ids (the GPU dialects). When not, a group's
  // items are loops of one thread and only group ids are launch dimensions (the CPU dialects).
  virtual bool has_local() const { return true; }
  // Whether the dialect spells arrays in a group's shared memory and the barrier that orders them
  // (DEFINE_LOCAL, BARRIER): what GROUP and GROUPTOP reduce through.
  virtual bool has_shared_memory() const { return false; }
  // Whether the dialect loads and stores 16-byte vectors of 32- and 16-bit elements at aligned
  // addresses while computing lane by lane (codegen/vector_memory: the GPU dialects).
  virtual bool has_vector_memory() const { return false; }
  // Whether the dialect has SIMD vector types for the vectorizer, and which ALU ops it computes on
  // them whole (|operand| is the sources' dtype, WHERE's values'); the rest run lane by lane.
  virtual bool has_vectors() const { return false; }
  virtual bool VectorAlu(Ops op, DType operand, DType result) const { return false; }
  // Whether a vector load or store under a lane mask is one operation (LLVM's masked intrinsics); C
  // spells it as a test of every lane before the whole-vector access.
  virtual bool has_masked_vectors() const { return false; }
  // Whether half arithmetic needs a device extension, reported as TG_CAP_FP16 (OpenCL's cl_khr_fp16).
  virtual bool half_needs_extension() const { return false; }
};

// The CPU dialects' (c, llvm-ir) choice: libm for scalars and float64, polynomials for float32 vectors
// (a libm call per lane splits the vector; measured in tools/bench/RESULTS.md).
bool CpuNativeTranscendental(Ops op, DType dtype, bool vectorized);
// The CPU dialects' vector ops (GCC vector extensions; LLVM vectors follow the same rules): arithmetic,
// comparisons and selects of 32-bit lanes (the mask type has them), bit ops of ints, and casts between
// number types of one lane count. GCC has no vector of _Bool or half math.
bool CpuVectorAlu(Ops op, DType operand, DType result);

// The renderer for |dialect|, or nullptr when the compiler cannot emit it. Lives forever. |arch| is the
// device's props.arch ("sm_90"); only a dialect tied to an ISA version (ptx) reads it, "" = its default.
const Renderer* RendererForDialect(std::string_view dialect, std::string_view arch = "");

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_RENDERER_H_
