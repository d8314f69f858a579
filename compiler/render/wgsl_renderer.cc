#include "compiler/render/wgsl_renderer.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "compiler/render/kernel_params.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

std::string Literal(const UOpRef& c) {
  DType d = c->dtype();
  ConstValue v = c->const_value();
  if (d.is_bool()) return ConstToInt(v) != 0 ? "true" : "false";
  if (d == dtypes::float32) {
    float f = static_cast<float>(ConstToDouble(v));
    if (std::isnan(f) || std::isinf(f)) {  // WGSL has no inf / nan literal
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return absl::StrCat("bitcast<f32>(", bits, "u)");
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", f);
    std::string text = buf;
    if (text.find_first_of(".eE") == std::string::npos) text += ".0";
    return text + "f";
  }
  int64_t i = ConstToInt(v);
  if (d == dtypes::uint32) return absl::StrCat(static_cast<uint32_t>(i), "u");
  if (i == INT32_MIN) return "bitcast<i32>(2147483648u)";  // -2147483648i does not parse
  return i < 0 ? absl::StrCat("(", i, "i)") : absl::StrCat(i, "i");
}

std::string Zero(DType d) { return d == dtypes::float32 ? "0.0f" : d == dtypes::uint32 ? "0u" : d.is_bool() ? "false" : "0i"; }

std::string Alu(const UOpRef& u, const std::vector<std::string>& a) {
  DType dt = u->dtype(), t = u->src(0)->dtype();
  auto bin = [&](const char* op) { return absl::StrCat("(", a[0], " ", op, " ", a[1], ")"); };
  switch (u->op()) {
    case Ops::kAdd: return bin("+");
    case Ops::kMul: return bin("*");
    case Ops::kIdiv: case Ops::kFdiv: return bin("/");
    case Ops::kMod: return bin("%");
    case Ops::kCmpLt: return bin("<");
    case Ops::kCmpNe: return bin("!=");
    case Ops::kCmpEq: return bin("==");
    case Ops::kXor: return t.is_bool() ? bin("!=") : bin("^");
    case Ops::kOr: return bin("|");
    case Ops::kAnd: return bin("&");
    case Ops::kShl: return absl::StrCat("(", a[0], " << u32(", a[1], "))");  // shift counts are u32
    case Ops::kShr: return absl::StrCat("(", a[0], " >> u32(", a[1], "))");
    case Ops::kMax: return absl::StrCat("select(", a[0], ", ", a[1], ", ", a[0], " < ", a[1], ")");  // C: (a<b)?b:a
    case Ops::kWhere: return absl::StrCat("select(", a[2], ", ", a[1], ", ", a[0], ")");
    case Ops::kMulAcc: return absl::StrCat("((", a[0], " * ", a[1], ") + ", a[2], ")");
    case Ops::kNeg: return t.is_bool() ? "(!" + a[0] + ")" : "(-" + a[0] + ")";
    case Ops::kReciprocal: return absl::StrCat("(1.0f / ", a[0], ")");
    case Ops::kExp2: return "exp2(" + a[0] + ")";
    case Ops::kLog2: return "log2(" + a[0] + ")";
    case Ops::kSin: return "sin(" + a[0] + ")";
    case Ops::kSqrt: return "sqrt(" + a[0] + ")";
    case Ops::kTrunc: return "trunc(" + a[0] + ")";
    case Ops::kCast:
      if (dt.is_bool()) return absl::StrCat("(", a[0], " != ", Zero(t), ")");
      return absl::StrCat(WgslType(dt), "(", a[0], ")");
    case Ops::kBitcast: return absl::StrCat("bitcast<", WgslType(dt), ">(", a[0], ")");
    default: throw Error("wgsl renderer: no spelling for " + std::string(OpName(u->op())));
  }
}

// The workgroup size: the extents of the lidx SPECIALs, 1 where a dimension has none.
std::array<int64_t, 3> WorkgroupSize(const std::vector<UOpRef>& ops) {
  std::array<int64_t, 3> local = {1, 1, 1};
  for (const UOpRef& u : ops)
    if (u->op() == Ops::kSpecial && u->arg_as<std::string>().rfind("lidx", 0) == 0)
      local[u->arg_as<std::string>()[4] - '0'] = u->src(0)->const_int();
  return local;
}

}  // namespace

std::string WgslType(DType dtype) {
  if (dtype.count() > 1) throw Error("wgsl renderer: vector types are not rendered (GPU kernels are scalar)");
  switch (dtype.scalar()) {
    case ScalarType::kBool: return "bool";
    case ScalarType::kInt32: return "i32";
    case ScalarType::kUInt32: return "u32";
    case ScalarType::kFloat32: return "f32";
    default: throw Error("wgsl renderer: WGSL has no " + dtype.name() + " (only f32, i32, u32 and bool)");
  }
}

std::string WgslRenderer::Render(const std::string& name, const std::vector<UOpRef>& ops) const {
  const KernelParams k = ScanParams(ops);
  if (!k.variables.empty())
    throw Error("wgsl renderer: kernel variables ('" + k.variables[0]->arg_as<std::string>() +
                "') are not rendered (they would need a uniform binding); bind the value as data instead");
  const std::array<int64_t, 3> local = WorkgroupSize(ops);
  std::string out;
  for (size_t i = 0; i < k.buffers.size(); ++i) {
    DType d = k.buffers[i]->dtype().base();
    if (d.is_bool()) throw Error("wgsl renderer: bool buffers are not supported (WGSL storage has no bytes)");
    absl::StrAppend(&out, "@group(0) @binding(", i, ") var<storage, ", k.written[i] ? "read_write" : "read", "> data", i,
                    ": array<", WgslType(d), ">;\n");
  }
  absl::StrAppend(&out, "\n@compute @workgroup_size(", local[0], ", ", local[1], ", ", local[2], ")\nfn ", name,
                  "(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {\n");
  absl::flat_hash_map<const UOp*, std::string> expr, acc_of_reduce;
  int depth = 1, counter = 0;
  auto line = [&](const std::string& text) { out += std::string(2 * depth, ' ') + text + "\n"; };
  auto of = [&](const UOpRef& s) -> const std::string& { return expr.at(s.get()); };
  auto let = [&](const UOpRef& u, const std::string& value) {
    std::string var = absl::StrCat("v", counter++);
    line(absl::StrCat("let ", var, " = ", value, ";"));
    expr[u.get()] = var;
  };
  for (const UOpRef& u : ops) {
    switch (u->op()) {
      case Ops::kDefineGlobal: expr[u.get()] = absl::StrCat("data", u->arg_as<int64_t>()); break;
      case Ops::kConst: expr[u.get()] = Literal(u); break;
      case Ops::kSpecial: {
        const std::string& s = u->arg_as<std::string>();
        std::string var = s;
        line(absl::StrCat("let ", var, " = ", WgslType(u->dtype()), "(", s[0] == 'g' ? "gid." : "lid.",
                          std::string(1, "xyz"[s[4] - '0']), ");"));
        expr[u.get()] = var;
        break;
      }
      case Ops::kRange: {
        std::string var = absl::StrCat("ridx", u->arg_as<int64_t>()), t = WgslType(u->dtype());
        line(absl::StrCat("for (var ", var, ": ", t, " = ", Zero(u->dtype()), "; ", var, " < ", of(u->src(0)), "; ", var,
                          "++) {"));
        expr[u.get()] = var;
        ++depth;
        break;
      }
      case Ops::kEnd: --depth; line("}"); break;
      case Ops::kDefineAcc: {
        std::string var = absl::StrCat("acc", u->arg_as<int64_t>());
        line(absl::StrCat("var ", var, ": ", WgslType(u->dtype()), " = ", of(u->src(0)), ";"));
        expr[u.get()] = var;
        acc_of_reduce[u->src(1).get()] = var;
        break;
      }
      case Ops::kAssign: line(absl::StrCat(of(u->src(0)), " = ", of(u->src(1)), ";")); break;
      case Ops::kReduce: expr[u.get()] = acc_of_reduce.at(u.get()); break;
      case Ops::kIndex: expr[u.get()] = absl::StrCat(of(u->src(0)), "[", of(u->src(1)), "]"); break;
      case Ops::kLoad: {  // WebGPU clamps out-of-bounds reads, so a gated load may read then discard
        const UOpRef& gate = u->src(0)->src(2);
        let(u, gate->is_const_value(true) ? of(u->src(0))
                                          : absl::StrCat("select(", Zero(u->dtype()), ", ", of(u->src(0)), ", ", of(gate), ")"));
        break;
      }
      case Ops::kStore: {
        const UOpRef& gate = u->src(0)->src(2);
        std::string store = absl::StrCat(of(u->src(0)), " = ", of(u->src(1)), ";");
        line(gate->is_const_value(true) ? store : absl::StrCat("if (", of(gate), ") { ", store, " }"));
        break;
      }
      default: {
        std::vector<std::string> args;
        for (const UOpRef& s : u->src()) args.push_back(of(s));
        WgslType(u->dtype());  // refuses types WGSL lacks, naming them
        let(u, Alu(u, args));
      }
    }
  }
  return out + "}\n";
}

}  // namespace tg::compiler
