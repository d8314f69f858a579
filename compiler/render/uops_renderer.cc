#include "compiler/render/uops_renderer.h"

#include <cinttypes>
#include <cstdio>
#include <iterator>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/render/kernel_params.h"
#include "ir/error.h"
#include "plugins/abi/tg_uops.h"

namespace tg::compiler {
namespace {

// The dialect's spelling of each scalar dtype: TG_UOPS_DTYPES lists them in ScalarType's order.
constexpr std::string_view kDTypeNames[] = {
#define TG_UOPS_DTYPE_NAME(name, bytes) #name,
    TG_UOPS_DTYPES(TG_UOPS_DTYPE_NAME)
#undef TG_UOPS_DTYPE_NAME
};
static_assert(std::size(kDTypeNames) == static_cast<size_t>(ScalarType::kFloat64) + 1);

std::string_view DTypeName(DType dtype) { return kDTypeNames[static_cast<size_t>(dtype.scalar())]; }

// The ops the dialect names (TG_UOPS_OPS); the text spells them as the compiler's OpName does.
const absl::flat_hash_set<std::string_view>& DialectOps() {
  static const auto* ops = new absl::flat_hash_set<std::string_view>{
#define TG_UOPS_OP_ENTRY(name) #name,
      TG_UOPS_OPS(TG_UOPS_OP_ENTRY)
#undef TG_UOPS_OP_ENTRY
  };
  return *ops;
}

std::string ConstText(const UOpRef& c) {
  ConstValue v = c->const_value();
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "1" : "0";
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    if (c->dtype().is_float()) return ConstText(UOp::Const(c->dtype(), static_cast<double>(*i)));
    if (c->dtype().scalar() == ScalarType::kUInt64) return std::to_string(static_cast<uint64_t>(*i));
    return std::to_string(*i);
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", std::get<double>(v));  // exact, and strtod reads it back
  return buf;
}

// What follows the dtype on |u|'s line: its arg, or "-".
std::string ArgText(const UOpRef& u, const KernelParams& params) {
  switch (u->op()) {
    case Ops::kDefineGlobal: return std::to_string(u->arg_as<int64_t>());
    case Ops::kDefineVar: return std::to_string(params.VariableSlot(u));
    case Ops::kConst: return ConstText(u);
    case Ops::kSpecial: {
      const std::string& id = u->arg_as<std::string>();
      if (id.size() != 5 || id.rfind("gidx", 0) != 0)
        throw Error("render: the tg-uops dialect has only group ids (gidx0..2), not " + id);
      return id;
    }
    default: return "-";
  }
}

}  // namespace

std::string_view UopsRenderer::dialect() const { return TG_UOPS_DIALECT; }

std::string UopsRenderer::Render(const std::string& name, const std::vector<UOpRef>& ops) const {
  KernelParams params = ScanParams(ops);
  absl::flat_hash_map<const UOp*, int64_t> line_of;
  absl::flat_hash_map<const UOp*, int64_t> acc_of_reduce;  // REDUCE stands for its accumulator's value
  std::string text = absl::StrCat("tg-uops ", TG_UOPS_VERSION, " ", name, "\n");
  int64_t next = 0;
  for (const UOpRef& u : ops) {
    std::string op(OpName(u->op()));
    if (!DialectOps().contains(op))
      throw Error(absl::StrCat("render: the tg-uops dialect has no ", op, " (kernel ", name, ")"));
    if (u->dtype().count() > 1)
      throw Error(absl::StrCat("render: the tg-uops dialect has no vector dtypes (", op, " of ",
                               u->dtype().name(), " in kernel ", name, ")"));
    absl::StrAppend(&text, op, " ", std::string(DTypeName(u->dtype())), " ", ArgText(u, params));
    if (u->op() == Ops::kReduce) {
      absl::StrAppend(&text, " ", acc_of_reduce.at(u.get()));
    } else if (u->op() == Ops::kDefineAcc) {
      absl::StrAppend(&text, " ", line_of.at(u->src(0).get()));  // src(1) is the REDUCE it stands for
      acc_of_reduce[u->src(1).get()] = next;
    } else if (u->op() != Ops::kDefineGlobal && u->op() != Ops::kDefineVar && u->op() != Ops::kSpecial) {
      for (const UOpRef& s : u->src()) absl::StrAppend(&text, " ", line_of.at(s.get()));
    }
    text += "\n";
    line_of[u.get()] = next++;
  }
  return text;
}

}  // namespace tg::compiler
