#include "compiler/render/renderer.h"

#include <map>
#include <memory>
#include <mutex>

#include "compiler/render/c_renderer.h"
#include "compiler/render/gpu_renderers.h"
#include "compiler/render/llvm_renderer.h"
#include "compiler/render/ptx_renderer.h"
#include "compiler/render/uops_renderer.h"
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

namespace {

bool Is32Bit(DType d) { return d.base().itemsize() == 4; }

bool IsHalf(DType d) { return d.base() == dtypes::float16 || d.base() == dtypes::bfloat16; }

}  // namespace

bool CpuVectorAlu(Ops op, DType operand, DType result) {
  switch (op) {
    case Ops::kAdd: case Ops::kMul: case Ops::kFdiv: return true;
    case Ops::kNeg: return !operand.is_bool();
    case Ops::kReciprocal: return operand.is_float() && !IsHalf(operand);
    case Ops::kMax: case Ops::kCmpLt: case Ops::kCmpNe: case Ops::kCmpEq: case Ops::kWhere:
      return Is32Bit(operand) && !operand.is_bool();
    case Ops::kAnd: case Ops::kOr: case Ops::kXor: return operand.is_int() || operand.is_bool();  // masks: 0 / -1
    case Ops::kShl: case Ops::kShr: return operand.is_int();
    case Ops::kCast:
      return !operand.is_bool() && !result.is_bool() && !IsHalf(operand) && !IsHalf(result);
    case Ops::kBitcast:
      return !operand.is_bool() && !result.is_bool() && !IsHalf(operand) && !IsHalf(result) &&
             operand.base().itemsize() == result.base().itemsize();
    default: return false;
  }
}

const Renderer* RendererForDialect(std::string_view dialect, std::string_view arch) {
  static const Renderer* const kRenderers[] = {new CRenderer(),        new LlvmRenderer(),
                                               new OpenClRenderer(),   new CudaRenderer("cuda-c"),
                                               new CudaRenderer("hip-c"), new WgslRenderer(),
                                               new UopsRenderer()};
  if (dialect == "ptx") return PtxFor(arch);
  for (const Renderer* r : kRenderers)
    if (r->dialect() == dialect) return r;
  return nullptr;
}

}  // namespace tg::compiler
