#include "compiler/render/c_renderer.h"

#include "absl/strings/str_cat.h"
#include "ir/error.h"
#include "plugins/abi/tg_plugin.h"

namespace tg::compiler {

std::string CRenderer::Prelude() const { return TG_C_DIALECT_PRELUDE; }

std::string CRenderer::KernelPrefix(const std::string& name, const std::vector<UOpRef>& buffers,
                                    const std::vector<bool>& written) const {
  std::string text;
  absl::StrAppend(&text, "int32_t ", name,
                  "(const tg_c_dispatch_state* restrict d, const tg_c_workgroup_state* restrict w) {\n");
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::string type = TypeName(buffers[i]->dtype());
    std::string constness = written[i] ? "" : "const ";
    absl::StrAppend(&text, "  ", constness, type, "* restrict data", i, " = (", constness, type,
                    "*)d->buffers[", i, "];\n");
  }
  return text;
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
