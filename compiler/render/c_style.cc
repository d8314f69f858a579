#include "compiler/render/c_style.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/render/kernel_params.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

bool IsVector(const UOpRef& u) { return u->dtype().count() > 1; }

std::string Binary(const std::string& a, const char* op, const std::string& b) {
  return absl::StrCat("(", a, op, b, ")");
}

// How the linear list uses each value: a single use at the definition's loop depth is inlined
// into its user; anything else becomes a named variable so hoisted work stays hoisted.
struct UseInfo {
  absl::flat_hash_map<const UOp*, int> uses;
  absl::flat_hash_map<const UOp*, int> def_depth;
  absl::flat_hash_map<const UOp*, bool> used_deeper;
};

// How many times the C spelling of |u| writes out its source |i|: MAX is (a<b)?b:a, a vector WHERE
// writes its mask twice. An operand spelled twice must be a variable, or a chain of such ops grows
// exponentially in text (a 16-lane max fold became a megabyte of C).
int Spellings(const UOpRef& u, size_t i) {
  if (u->op() == Ops::kMax) return 2;
  if (u->op() == Ops::kWhere && i == 0 && u->dtype().count() > 1) return 2;
  return 1;
}

UseInfo AnalyzeUses(const std::vector<UOpRef>& ops) {
  UseInfo info;
  int depth = 0;
  for (const UOpRef& u : ops) {
    if (u->op() == Ops::kEnd) --depth;
    for (size_t i = 0; i < u->src().size(); ++i) {
      const UOpRef& s = u->src(i);
      info.uses[s.get()] += Spellings(u, i);
      auto it = info.def_depth.find(s.get());
      if (it != info.def_depth.end() && it->second != depth) info.used_deeper[s.get()] = true;
    }
    info.def_depth[u.get()] = depth;
    if (u->op() == Ops::kRange) ++depth;
  }
  return info;
}

// GEP: one lane of a GCC vector. A lane of a comparison mask is 0 / -1; as a bool it must read 0 / 1.
std::string LaneOf(const UOpRef& gep, const std::string& vector) {
  if (gep->src(0)->dtype().is_bool()) return absl::StrCat("((", vector, ")[", gep->arg_as<int64_t>(), "]!=0)");
  return absl::StrCat("(", vector, ")[", gep->arg_as<int64_t>(), "]");
}

}  // namespace

std::string CStyleRenderer::TypeName(DType dtype) const {
  if (dtype.count() > 1) return VectorTypeName(dtype);
  switch (dtype.scalar()) {
    case ScalarType::kBool: return "_Bool";
    case ScalarType::kInt8: return "int8_t";
    case ScalarType::kInt16: return "int16_t";
    case ScalarType::kInt32: return "int32_t";
    case ScalarType::kInt64: return "int64_t";
    case ScalarType::kUInt8: return "uint8_t";
    case ScalarType::kUInt16: return "uint16_t";
    case ScalarType::kUInt32: return "uint32_t";
    case ScalarType::kUInt64: return "uint64_t";
    case ScalarType::kFloat16: return "_Float16";
    case ScalarType::kBFloat16: return "uint16_t";  // storage only: math runs in float (dtype_decomp)
    case ScalarType::kFloat32: return "float";
    case ScalarType::kFloat64: return "double";
    case ScalarType::kVoid: return "void";
  }
  return "void";
}

std::string CStyleRenderer::FloatLiteral(double v, DType dtype) const {
  if (std::isnan(v) || std::isinf(v)) return SpecialFloat(v, dtype);
  char buf[64];
  std::snprintf(buf, sizeof(buf), dtype == dtypes::float64 ? "%.17g" : "%.9g", v);
  std::string text = buf;
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  if (dtype == dtypes::float64) return text;
  text += "f";
  if (dtype == dtypes::bfloat16) return "tg_f32_to_bf16(" + text + ")";
  return dtype == dtypes::float32 ? text : "((" + TypeName(dtype) + ")" + text + ")";
}

std::string CStyleRenderer::SpecialFloat(double v, DType dtype) const {
  if (dtype == dtypes::bfloat16) return "tg_f32_to_bf16(" + SpecialFloat(v, dtypes::float32) + ")";
  std::string cast = "(" + TypeName(dtype) + ")";
  if (std::isnan(v)) return cast + "NAN";
  return v > 0 ? cast + "INFINITY" : "(-" + cast + "INFINITY)";
}

std::string CStyleRenderer::IntLiteral(int64_t v, DType dtype) const {
  if (v == std::numeric_limits<int64_t>::min()) return "((" + TypeName(dtype) + ")(-9223372036854775807l-1))";
  if (dtype == dtypes::int32 && v == std::numeric_limits<int32_t>::min()) return "(-2147483647-1)";
  std::string text = std::to_string(v);
  switch (dtype.scalar()) {
    // "l"/"ul" mean 64 bits in C on LP64, in OpenCL C and in CUDA alike ("ll" is not OpenCL).
    case ScalarType::kInt64: return "((" + TypeName(dtype) + ")" + text + "l)";
    case ScalarType::kUInt64: return "((" + TypeName(dtype) + ")" + std::to_string(static_cast<uint64_t>(v)) + "ul)";
    case ScalarType::kUInt32: return std::to_string(static_cast<uint32_t>(v)) + "u";
    case ScalarType::kInt32: return v < 0 ? "(" + text + ")" : text;
    default: return "((" + TypeName(dtype) + ")" + text + ")";
  }
}

std::string CStyleRenderer::Zero(DType dtype) const {
  return dtype.count() > 1 ? "(" + TypeName(dtype) + "){0}" : "((" + TypeName(dtype) + ")0)";
}

std::string CStyleRenderer::Bitcast(DType from, DType to, const std::string& x) const {
  return absl::StrCat("({", TypeName(from), " _s=", x, "; ", TypeName(to),
                      " _d; __builtin_memcpy(&_d, &_s, sizeof(_d)); _d;})");
}

std::string CStyleRenderer::Literal(const UOpRef& c) const {
  ConstValue v = c->const_value();
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "1" : "0";
  if (c->dtype().is_float()) {
    double d = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                 : static_cast<double>(std::get<int64_t>(v));
    return FloatLiteral(d, c->dtype());
  }
  return IntLiteral(std::get<int64_t>(v), c->dtype());
}

std::string CStyleRenderer::MathCall(std::string_view fn, DType dtype, const std::string& x) const {
  std::string name(fn);
  if (dtype == dtypes::float64) return absl::StrCat(name, "(", x, ")");
  if (dtype == dtypes::float32) return absl::StrCat(name, "f(", x, ")");
  // Half types compute in float, like the hardware that lacks native half math.
  return absl::StrCat("((", TypeName(dtype), ")", name, "f((float)", x, "))");
}

std::string CStyleRenderer::LocalArray(DType, const std::string& name, int64_t) const {
  throw Error("render: the " + std::string(dialect()) + " renderer has no local memory for " + name);
}

std::string CStyleRenderer::Barrier() const {
  throw Error("render: the " + std::string(dialect()) + " renderer has no barrier");
}

std::string CStyleRenderer::VectorLiteral(DType dtype, const std::vector<std::string>& lanes) const {
  return absl::StrCat("((", TypeName(dtype), "){", absl::StrJoin(lanes, ","), "})");
}

std::string CStyleRenderer::Broadcast(DType dtype, const std::string& scalar) const {
  return absl::StrCat("((", TypeName(dtype), "){0}+", scalar, ")");  // GCC broadcasts a scalar added to a vector
}

std::string CStyleRenderer::MatrixCall(const UOpRef& wmma, const std::vector<std::string>&) const {
  throw Error("render: the " + std::string(dialect()) + " renderer has no matrix instruction " + wmma->arg_as<std::string>());
}

std::string CStyleRenderer::LaneExpr(const UOpRef& gep, const std::string& vector) const { return LaneOf(gep, vector); }

std::string CStyleRenderer::VectorAt(DType dtype, const std::string& buf, const std::string& index) const {
  return absl::StrCat("(*(", TypeName(dtype), "*)(", buf, "+", index, "))");
}

std::string CStyleRenderer::AluExpr(const UOpRef& u, const std::vector<std::string>& a) const {
  DType dt = u->dtype();
  if (dt.count() > 1) return VectorAluExpr(u, a);
  switch (u->op()) {
    case Ops::kAdd: return Binary(a[0], "+", a[1]);
    case Ops::kMul: return Binary(a[0], "*", a[1]);
    case Ops::kIdiv: case Ops::kFdiv: return Binary(a[0], "/", a[1]);
    case Ops::kMod: return Binary(a[0], "%", a[1]);
    case Ops::kMax: return absl::StrCat("((", a[0], "<", a[1], ")?", a[1], ":", a[0], ")");
    case Ops::kCmpLt: return Binary(a[0], "<", a[1]);
    case Ops::kCmpNe: return Binary(a[0], "!=", a[1]);
    case Ops::kCmpEq: return Binary(a[0], "==", a[1]);
    case Ops::kXor: return Binary(a[0], "^", a[1]);
    case Ops::kOr: return Binary(a[0], "|", a[1]);
    case Ops::kAnd: return Binary(a[0], "&", a[1]);
    case Ops::kShl: return Binary(a[0], "<<", a[1]);
    case Ops::kShr: return Binary(a[0], ">>", a[1]);
    case Ops::kWhere: return absl::StrCat("(", a[0], "?", a[1], ":", a[2], ")");
    case Ops::kMulAcc: return absl::StrCat("((", a[0], "*", a[1], ")+", a[2], ")");
    case Ops::kGep: return LaneExpr(u, a[0]);
    case Ops::kNeg: return dt.is_bool() ? "(!" + a[0] + ")" : "(-" + a[0] + ")";
    case Ops::kReciprocal: return absl::StrCat("((", TypeName(dt), ")1/", a[0], ")");
    case Ops::kExp2: return MathCall("exp2", dt, a[0]);
    case Ops::kLog2: return MathCall("log2", dt, a[0]);
    case Ops::kSin: return MathCall("sin", dt, a[0]);
    case Ops::kSqrt: return MathCall("sqrt", dt, a[0]);
    case Ops::kTrunc: return MathCall("trunc", dt, a[0]);
    case Ops::kCast: {
      // bfloat16 is 16 bits of storage: convert through float with the prelude's helpers.
      std::string x = u->src(0)->dtype() == dtypes::bfloat16 ? "tg_bf16_to_f32(" + a[0] + ")" : a[0];
      if (dt == dtypes::bfloat16) return "tg_f32_to_bf16((float)" + x + ")";
      return absl::StrCat("((", TypeName(dt), ")", x, ")");
    }
    case Ops::kBitcast: return Bitcast(u->src(0)->dtype(), dt, a[0]);
    default:
      throw Error("render: no C spelling for " + std::string(OpName(u->op())));
  }
}

std::string CStyleRenderer::VectorTypeName(DType dtype) const {
  // Comparisons of 32-bit lanes give 32-bit masks (0 / -1), GCC's vector boolean.
  if (dtype.is_bool()) return "tg_mask_" + std::to_string(dtype.count());
  return "tg_" + TypeName(dtype.base()) + "_" + std::to_string(dtype.count());
}

std::string CStyleRenderer::VectorTypedefs(const std::vector<UOpRef>& ops) const {
  std::set<std::pair<std::string, std::string>> seen;  // (name, definition), sorted for stable source
  for (const UOpRef& u : ops) {
    if (u->dtype().count() <= 1) continue;
    // Every lane count gets its mask type too: MAX and WHERE select lanes through one.
    for (DType d : {u->dtype(), dtypes::bool_.vec(u->dtype().count())}) {
    int lane_bytes = d.is_bool() ? 4 : d.base().itemsize();
    std::string lane = d.is_bool() ? "int32_t" : TypeName(d.base());
    // aligned(lane) lets a vector load or store start at any element.
    seen.emplace(VectorTypeName(d), absl::StrCat("typedef ", lane, " ", VectorTypeName(d), " __attribute__((vector_size(",
                                                 lane_bytes * d.count(), "), aligned(", lane_bytes, ")));\n"));
    }
  }
  std::string out;
  for (const auto& [name, def] : seen) out += def;
  return out;
}

// A vector of |dtype| from |x|, which may be a scalar (GCC broadcasts a scalar added to a zero vector).
static std::string AsVector(const UOpRef& src, const std::string& x, const std::string& type) {
  return IsVector(src) ? x : absl::StrCat("((", type, "){0}+", x, ")");
}

// A scalar bool as a lane of a mask vector: all-ones for true, as vector comparisons give and selects expect.
static std::string MaskLane(const std::string& x) { return "(-(" + x + "))"; }

std::string CStyleRenderer::VectorAluExpr(const UOpRef& u, const std::vector<std::string>& args) const {
  std::string t = TypeName(u->dtype());
  // A scalar operand is spelled in its own lane type: C promotes a narrow integer expression to int,
  // which GCC refuses to narrow into a vector of uint16_t or uint8_t lanes.
  std::vector<std::string> a = args;
  for (size_t i = 0; i < a.size() && i < u->src().size(); ++i)
    if (!IsVector(u->src(i)) && !u->src(i)->dtype().is_bool())
      a[i] = absl::StrCat("((", TypeName(u->src(i)->dtype()), ")", args[i], ")");
  auto select = [&](const std::string& mask, const UOpRef& x, const std::string& xs, const UOpRef& y,
                    const std::string& ys) {
    std::string m = VectorTypeName(dtypes::bool_.vec(u->dtype().count()));
    return absl::StrCat("((", t, ")(((", m, ")", AsVector(x, xs, t), "&(", mask, "))|((", m, ")", AsVector(y, ys, t),
                        "&~(", mask, "))))");
  };
  switch (u->op()) {
    case Ops::kAdd: return Binary(a[0], "+", a[1]);
    case Ops::kMul: return Binary(a[0], "*", a[1]);
    case Ops::kFdiv: return Binary(a[0], "/", a[1]);
    case Ops::kNeg: return "(-" + a[0] + ")";
    case Ops::kReciprocal: return absl::StrCat("((", TypeName(u->dtype().base()), ")1/", a[0], ")");
    case Ops::kAnd: return Binary(a[0], "&", a[1]);
    case Ops::kOr: return Binary(a[0], "|", a[1]);
    case Ops::kXor: return Binary(a[0], "^", a[1]);
    case Ops::kShl: return Binary(a[0], "<<", a[1]);
    case Ops::kShr: return Binary(a[0], ">>", a[1]);
    case Ops::kCast: return absl::StrCat("__builtin_convertvector(", a[0], ", ", t, ")");
    case Ops::kBitcast: return absl::StrCat("((", t, ")(", a[0], "))");  // same size: GCC reinterprets
    case Ops::kCmpLt: return Binary(a[0], "<", a[1]);
    case Ops::kCmpNe: return Binary(a[0], "!=", a[1]);
    case Ops::kCmpEq: return Binary(a[0], "==", a[1]);
    case Ops::kMax: return select(Binary(a[0], "<", a[1]), u->src(1), a[1], u->src(0), a[0]);
    case Ops::kWhere:
      if (!IsVector(u->src(0)))
        return absl::StrCat("(", a[0], "?", AsVector(u->src(1), a[1], t), ":", AsVector(u->src(2), a[2], t), ")");
      return select(a[0], u->src(1), a[1], u->src(2), a[2]);
    case Ops::kGep: return LaneOf(u, a[0]);
    default:
      throw Error("render: no vector C spelling for " + std::string(OpName(u->op())));
  }
}

// A vector load under a lane mask: the whole vector when every lane is on (a conv's interior), the
// lanes that are on otherwise (its border), so no lane reads outside its buffer.
std::string CStyleRenderer::MaskedLoad(const UOpRef& load, const std::string& buf, const std::string& index,
                                       const std::string& mask) const {
  std::string t = TypeName(load->dtype()), m = VectorTypeName(dtypes::bool_.vec(load->dtype().count()));
  std::string lanes = std::to_string(load->dtype().count());
  return absl::StrCat("({", TypeName(load->dtype().base()), " const* _p=", buf, "+", index, "; ", m, " _m=", mask, "; ",
                      t, " _v=", Zero(load->dtype()), "; int32_t _all=-1; for (int _l=0; _l<", lanes,
                      "; _l++) _all&=_m[_l]; if (_all) _v=*(", t, "*)_p; else for (int _l=0; _l<", lanes,
                      "; _l++) if (_m[_l]) _v[_l]=_p[_l]; _v;})");
}

// The store's counterpart: the whole vector when every lane is on, the lanes that are on otherwise.
std::string CStyleRenderer::MaskedStore(DType vector, const std::string& buf, const std::string& index,
                                        const std::string& mask, const std::string& value) const {
  std::string t = TypeName(vector), m = VectorTypeName(dtypes::bool_.vec(vector.count()));
  std::string lanes = std::to_string(vector.count());
  return absl::StrCat("{", TypeName(vector.base()), "* _p=", buf, "+", index, "; ", m, " _m=", mask, "; ", t, " _v=",
                      value, "; int32_t _all=-1; for (int _l=0; _l<", lanes, "; _l++) _all&=_m[_l]; if (_all) *(", t,
                      "*)_p=_v; else for (int _l=0; _l<", lanes, "; _l++) if (_m[_l]) _p[_l]=_v[_l];}");
}

std::string CStyleRenderer::Render(const std::string& name, const std::vector<UOpRef>& ops) const {
  KernelParams params = ScanParams(ops);

  UseInfo info = AnalyzeUses(ops);
  absl::flat_hash_map<const UOp*, std::string> expr;
  absl::flat_hash_map<const UOp*, std::string> acc_of_reduce;
  // Local arrays are declared at the kernel's top scope (OpenCL requires it).
  std::string body, local_arrays = KernelScopeArrays(ops);
  int depth = 1, counter = 0;
  auto line = [&](const std::string& text) { body += std::string(2 * depth, ' ') + text + "\n"; };
  auto of = [&](const UOpRef& s) -> const std::string& { return expr.at(s.get()); };
  auto declare = [&](const UOpRef& u, const char* prefix, const std::string& value) {
    std::string var = absl::StrCat(prefix, counter++);
    line(absl::StrCat(TypeName(u->dtype()), " ", var, " = ", value, ";"));
    expr[u.get()] = var;
  };

  for (const UOpRef& u : ops) {
    switch (u->op()) {
      case Ops::kDefineGlobal: expr[u.get()] = absl::StrCat("data", u->arg_as<int64_t>()); break;
      case Ops::kDefineVar: expr[u.get()] = KernelParams::VariableName(params.VariableSlot(u)); break;
      case Ops::kConst: expr[u.get()] = Literal(u); break;
      case Ops::kDefineLocal: {
        std::string var = absl::StrCat("temp", u->arg_as<int64_t>());
        local_arrays += "  " + LocalArray(u->dtype(), var, u->src(0)->const_int()) + "\n";
        expr[u.get()] = var;
        break;
      }
      case Ops::kBarrier: line(Barrier()); break;
      case Ops::kWmma: {
        std::vector<std::string> args;
        for (const UOpRef& s : u->src()) args.push_back(of(s));
        declare(u, "wmma", MatrixCall(u, args));
        break;
      }
      case Ops::kSpecial: {
        const std::string& var = u->arg_as<std::string>();
        line(absl::StrCat(TypeName(u->dtype()), " ", var, " = ", SpecialExpr(var), ";"));
        expr[u.get()] = var;
        break;
      }
      case Ops::kRange: {
        std::string var = absl::StrCat("ridx", u->arg_as<int64_t>());
        line(absl::StrCat("for (", TypeName(u->dtype()), " ", var, " = 0; ", var, " < ", of(u->src(0)),
                          "; ", var, "++) {"));
        expr[u.get()] = var;
        ++depth;
        break;
      }
      case Ops::kEnd: --depth; line("}"); break;
      case Ops::kDefineAcc: {
        std::string var = absl::StrCat("acc", u->arg_as<int64_t>());
        // A vector accumulator starts from its scalar identity in every lane; a bool's true is the mask's -1.
        const UOpRef& identity = u->src(0);
        std::string init = of(identity);
        if (IsVector(u) && !IsVector(identity)) init = Broadcast(u->dtype(), u->dtype().is_bool() ? MaskLane(init) : init);
        line(absl::StrCat(TypeName(u->dtype()), " ", var, " = ", init, ";"));
        expr[u.get()] = var;
        acc_of_reduce[u->src(1).get()] = var;
        break;
      }
      case Ops::kAssign: line(absl::StrCat(of(u->src(0)), " = ", of(u->src(1)), ";")); break;
      case Ops::kReduce: expr[u.get()] = acc_of_reduce.at(u.get()); break;
      case Ops::kIndex:
        expr[u.get()] = IsVector(u) ? VectorAt(u->dtype(), of(u->src(0)), of(u->src(1)))
                                    : absl::StrCat(of(u->src(0)), "[", of(u->src(1)), "]");
        break;
      case Ops::kVectorize: {
        std::vector<std::string> lanes;
        for (const UOpRef& l : u->src()) lanes.push_back(u->dtype().is_bool() ? MaskLane(of(l)) : of(l));
        std::string value = VectorLiteral(u->dtype(), lanes);
        if (info.uses[u.get()] > 1 || info.used_deeper[u.get()]) declare(u, "vec", value);
        else expr[u.get()] = value;
        break;
      }
      case Ops::kLoad: {
        const UOpRef& gate = u->src(0)->src(2);
        std::string value = gate->is_const_value(true) ? of(u->src(0))
            : IsVector(gate) ? MaskedLoad(u, of(u->src(0)->src(0)), of(u->src(0)->src(1)), of(gate))
            : absl::StrCat("(", of(gate), "?", of(u->src(0)), ":", Zero(u->dtype()), ")");
        declare(u, "val", value);
        break;
      }
      case Ops::kStore: {
        const UOpRef& gate = u->src(0)->src(2);
        if (IsVector(gate)) {
          line(MaskedStore(u->src(1)->dtype(), of(u->src(0)->src(0)), of(u->src(0)->src(1)), of(gate), of(u->src(1))));
          break;
        }
        std::string store = absl::StrCat(of(u->src(0)), " = ", of(u->src(1)), ";");
        line(gate->is_const_value(true) ? store : absl::StrCat("if (", of(gate), ") ", store));
        break;
      }
      default: {
        std::vector<std::string> args;
        for (const UOpRef& s : u->src()) args.push_back(of(s));
        std::string value = AluExpr(u, args);
        if (info.uses[u.get()] > 1 || info.used_deeper[u.get()]) declare(u, "alu", value);
        else expr[u.get()] = value;
      }
    }
  }
  return Prelude() + Extensions(ops) + VectorTypedefs(ops) + KernelPrefix(name, params) + local_arrays + body +
         KernelSuffix();
}

}  // namespace tg::compiler
