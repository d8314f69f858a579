// Renderer: turns a linearized kernel into source text in one dialect a device accepts.
// The last compiler step of DESIGN §2 before runtime/program_cache; one subclass per dialect.
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
};

// The CPU dialects' (c, llvm-ir) choice: libm for scalars and float64, polynomials for float32 vectors
// (a libm call per lane splits the vector; measured in tools/bench/RESULTS.md).
bool CpuNativeTranscendental(Ops op, DType dtype, bool vectorized);

// The renderer for |dialect|, or nullptr when the compiler cannot emit it. Lives forever. |arch| is the
// device's props.arch ("sm_90"); only a dialect tied to an ISA version (ptx) reads it, "" = its default.
const Renderer* RendererForDialect(std::string_view dialect, std::string_view arch = "");

}  // namespace tg::compiler

#endif  // TG_COMPILER_RENDER_RENDERER_H_
