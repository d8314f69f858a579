#include "compiler/render/c_renderer.h"

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::compiler {

std::string CRenderer::Prelude() const {
  return std::string(TG_C_DIALECT_PRELUDE) +
         "static inline float tg_bf16_to_f32(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; "
         "__builtin_memcpy(&f, &u, 4); return f; }\n"
         "static inline uint16_t tg_f32_to_bf16(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); "
         "if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); "
         "u += 0x7fffu + ((u >> 16) & 1u); return (uint16_t)(u >> 16); }\n";
}

std::string CRenderer::KernelPrefix(const std::string& name, const KernelParams& params) const {
  std::string text;
  absl::StrAppend(&text, "int32_t ", name,
                  "(const tg_c_dispatch_state* restrict d, const tg_c_workgroup_state* restrict w) {\n");
  for (size_t i = 0; i < params.buffers.size(); ++i) {
    std::string type = TypeName(params.buffers[i]->dtype());
    std::string constness = params.written[i] ? "" : "const ";
    absl::StrAppend(&text, "  ", constness, type, "* restrict data", i, " = (", constness, type,
                    "*)d->buffers[", i, "];\n");
  }
  // Scalar arguments arrive widened to 64 bits (the c dialect's ABI); variables are 32-bit.
  for (size_t i = 0; i < params.variables.size(); ++i)
    absl::StrAppend(&text, "  const int32_t ", KernelParams::VariableName(i), " = (int32_t)d->scalars[", i, "];\n");
  return text;
}

bool CRenderer::NativeTranscendental(Ops op, DType dtype, bool vectorized) const {
  return CpuNativeTranscendental(op, dtype, vectorized);
}

std::string CRenderer::KernelSuffix() const { return "  return 0;\n}\n"; }

// "gidx0" -> w->group_id[0]: in the c dialect every work item of a group is a loop in the kernel,
// so only group ids exist.
std::string CRenderer::SpecialExpr(const std::string& special_name) const {
  if (special_name.size() != 5 || special_name.rfind("gidx", 0) != 0)
    throw Error("c renderer: unsupported launch id " + special_name);
  return absl::StrCat("(int32_t)w->group_id[", special_name.substr(4), "]");
}

}  // namespace tg::compiler
