#include "compiler/render/ptx_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/render/kernel_params.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

// PTX keeps sub-word integers and float16 in 16-bit registers; each class is declared once as "%<prefix><N>".
enum class RegClass { kPred, kB16, kB32, kB64, kF32, kF64 };
constexpr const char* kRegPrefix[] = {"%p", "%rs", "%r", "%rd", "%f", "%fd"};
constexpr const char* kRegDecl[] = {".pred", ".b16", ".b32", ".b64", ".f32", ".f64"};

RegClass ClassOf(DType d) {
  if (d.count() > 1) throw Error("ptx renderer: vector types are not rendered (GPU kernels are scalar)");
  switch (d.scalar()) {
    case ScalarType::kBool: return RegClass::kPred;
    case ScalarType::kInt8: case ScalarType::kUInt8: case ScalarType::kInt16: case ScalarType::kUInt16:
    case ScalarType::kFloat16:
      return RegClass::kB16;
    case ScalarType::kInt32: case ScalarType::kUInt32: return RegClass::kB32;
    case ScalarType::kInt64: case ScalarType::kUInt64: return RegClass::kB64;
    case ScalarType::kFloat32: return RegClass::kF32;
    case ScalarType::kFloat64: return RegClass::kF64;
    default: throw Error("ptx renderer: " + d.name() + " is not supported yet (use cuda-c)");
  }
}

bool IsHalf(DType d) { return d == dtypes::float16; }

// The instruction type of a value in a register ("s32", "f16"; sub-word ints compute as 16 bits).
std::string RegType(DType d) {
  if (d.is_bool()) return "pred";
  if (d.is_float()) return IsHalf(d) ? "f16" : d == dtypes::float64 ? "f64" : "f32";
  int bits = std::max(16, d.itemsize() * 8);
  return absl::StrCat(d.is_unsigned() ? "u" : "s", bits);
}

std::string Bits(DType d) { return absl::StrCat("b", std::max(16, d.itemsize() * 8)); }

// The type of a value in memory ("s8", "u8" for bool) and as an integer conversion operand. ld and st
// have no .f16: a half moves as its 16 bits.
std::string MemType(DType d) {
  if (d.is_bool()) return "u8";
  if (IsHalf(d)) return "b16";
  if (d.is_float()) return RegType(d);
  return absl::StrCat(d.is_unsigned() ? "u" : "s", d.itemsize() * 8);
}

// The type of mov and selp, which have .f32/.f64 but no .f16: a half is copied as .b16.
std::string MovType(DType d) {
  if (d.is_bool()) return "pred";
  return d.is_float() && !IsHalf(d) ? RegType(d) : Bits(d);
}

// IEEE binary16 bits of |v| rounded to the nearest half: PTX spells no f16 literal, so a half constant
// is these bits moved into a .b16 register.
uint16_t HalfBits(double v) {
  v = ConstToDouble(CastConst(v, dtypes::float16));
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  v = std::fabs(v);
  if (std::isnan(v)) return sign | 0x7E00;
  if (std::isinf(v)) return sign | 0x7C00;
  if (v < 0x1p-14) return sign | static_cast<uint16_t>(v * 0x1p24);  // subnormal (and 0): multiples of 2^-24
  int exp = 0;
  double m = std::frexp(v, &exp);  // v = m * 2^exp, 0.5 <= m < 1: biased exponent exp - 1 + 15
  return sign | static_cast<uint16_t>((exp + 14) << 10) | static_cast<uint16_t>((m * 2 - 1) * 1024);
}

std::string Immediate(const ConstValue& v, DType d) {
  char buf[40];
  if (IsHalf(d)) {
    std::snprintf(buf, sizeof buf, "0x%04X", HalfBits(ConstToDouble(v)));
  } else if (d == dtypes::float32) {
    float f = static_cast<float>(ConstToDouble(v));
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    std::snprintf(buf, sizeof buf, "0f%08X", bits);
  } else if (d == dtypes::float64) {
    double f = ConstToDouble(v);
    uint64_t bits;
    std::memcpy(&bits, &f, 8);
    std::snprintf(buf, sizeof buf, "0d%016llX", static_cast<unsigned long long>(bits));
  } else {  // the bit pattern, so INT64_MIN and large unsigned values need no special spelling
    uint64_t bits = static_cast<uint64_t>(ConstToInt(v));
    if (d.itemsize() < 8) bits &= (uint64_t{1} << (std::max(16, d.itemsize() * 8))) - 1;
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(bits));
  }
  return buf;
}

// float16 arithmetic: what PTX has in .f16 (sm_53 on) runs natively; the rest (div, rcp, sqrt, trunc,
// the transcendentals), and everything before sm_53, computes in float32 and rounds back once. That
// is the simplest spelling that changes no value: every half is exact in float32, and a float32 result
// of + - * / sqrt (24 bits, at least 2p+2 for a half's p = 11) rounded again to half is the correctly
// rounded half result (only MULACC before sm_53 may round twice where fma.rn.f16 rounds once). Moves,
// selects and conversions need no f16 ALU on any target.
bool NativeHalf(Ops op, int sm) {
  switch (op) {
    case Ops::kCast: case Ops::kBitcast: case Ops::kWhere: return true;
    case Ops::kAdd: case Ops::kMul: case Ops::kMulAcc: case Ops::kNeg: case Ops::kMax:
    case Ops::kCmpLt: case Ops::kCmpNe: case Ops::kCmpEq:
      return sm >= 53;
    default: return false;
  }
}

class PtxEmitter {
 public:
  explicit PtxEmitter(int sm) : sm_(sm) {}
  std::string Run(const std::string& name, const std::vector<UOpRef>& ops, const std::string& header);

 private:
  std::string Reg(DType d) {
    int c = static_cast<int>(ClassOf(d));
    return absl::StrCat(kRegPrefix[c], count_[c]++);
  }
  void Ins(const std::string& text) { body_ += "\t" + text + ";\n"; }
  std::string Def(DType d, const std::string& opcode, const std::vector<std::string>& args) {
    std::string r = Reg(d);
    Ins(absl::StrCat(opcode, " ", r, ", ", absl::StrJoin(args, ", ")));
    return r;
  }
  const std::string& Of(const UOpRef& u) { return value_.at(u.get()); }
  void Emit(const UOpRef& u, const std::string& name);
  std::string Alu(const UOpRef& u);
  std::string Alu(Ops op, DType dt, const std::vector<DType>& types, const std::vector<std::string>& a);
  std::string Cast(DType from, DType to, const std::string& x);
  std::string Address(const UOpRef& index);
  void EmitConst(const UOpRef& u);
  void EmitLocal(const UOpRef& u);

  int sm_;
  std::string body_, prologue_, shared_;
  int count_[6] = {1, 1, 1, 1, 1, 1};  // register 0 unused, as nvcc does
  int labels_ = 0;
  std::vector<std::pair<std::string, std::string>> loops_;  // (counter register, label id)
  absl::flat_hash_map<const UOp*, std::string> value_;
  absl::flat_hash_map<const UOp*, std::string> reduce_acc_;
};

void PtxEmitter::EmitConst(const UOpRef& u) {
  DType d = u->dtype();
  std::string r = Reg(d);
  // Constants live in registers set before the first instruction, so every use is dominated by them.
  if (d.is_bool())
    absl::StrAppend(&prologue_, "\tsetp.ne.u32 ", r, ", ", ConstToInt(u->const_value()) != 0 ? 1 : 0, ", 0;\n");
  else
    absl::StrAppend(&prologue_, "\tmov.", MovType(d), " ", r, ", ", Immediate(u->const_value(), d), ";\n");
  value_[u.get()] = r;
}

// DEFINE_LOCAL: a .shared byte array of the kernel, its address (in the shared window, no cvta)
// taken once from its symbol; LOAD and STORE add the offset and use ld/st.shared.
void PtxEmitter::EmitLocal(const UOpRef& u) {
  std::string var = absl::StrCat("temp", u->arg_as<int64_t>()), base = Reg(dtypes::int64);
  int size = std::max(1, u->dtype().base().itemsize());  // bool is a byte, as in global memory
  absl::StrAppend(&shared_, "\t.shared .align ", size, " .b8 ", var, "[", u->src(0)->const_int() * size, "];\n");
  absl::StrAppend(&prologue_, "\tmov.u64 ", base, ", ", var, ";\n");
  value_[u.get()] = base;
}

std::string PtxEmitter::Cast(DType from, DType to, const std::string& x) {
  if (from == to) return x;
  if (to.is_bool()) {
    if (IsHalf(from))  // on the bits: all but +-0 is true, NaN included, as C's (bool)
      return Def(to, "setp.ne.u16", {Def(dtypes::uint16, "and.b16", {x, "0x7FFF"}), "0"});
    std::string zero = from.is_float() ? Immediate(0.0, from) : "0";
    return Def(to, absl::StrCat("setp.", from.is_float() ? "neu." : "ne.", RegType(from)), {x, zero});
  }
  if (from.is_bool())
    return Def(to, "selp." + MovType(to),
               {to.is_float() ? Immediate(1.0, to) : "1", to.is_float() ? Immediate(0.0, to) : "0", x});
  if (from.is_float() && to.is_float()) {  // widening is exact; narrowing rounds to nearest even
    const char* cvt = to.itemsize() > from.itemsize() ? "cvt." : "cvt.rn.";
    return Def(to, absl::StrCat(cvt, RegType(to), ".", RegType(from)), {x});
  }
  if (from.is_float()) return Def(to, absl::StrCat("cvt.rzi.", MemType(to), ".", RegType(from)), {x});
  if (to.is_float()) return Def(to, absl::StrCat("cvt.rn.", RegType(to), ".", MemType(from)), {x});
  if (ClassOf(from) == ClassOf(to) && from.itemsize() == to.itemsize()) return Def(to, "mov." + Bits(to), {x});
  return Def(to, absl::StrCat("cvt.", MemType(to), ".", MemType(from)), {x});
}

std::string PtxEmitter::Alu(const UOpRef& u) {
  std::vector<DType> types;
  std::vector<std::string> a;
  for (const UOpRef& s : u->src()) {
    types.push_back(s->dtype());
    a.push_back(Of(s));
  }
  bool half = IsHalf(u->dtype()) || std::any_of(types.begin(), types.end(), IsHalf);
  if (!half || NativeHalf(u->op(), sm_)) return Alu(u->op(), u->dtype(), types, a);
  for (size_t i = 0; i < a.size(); ++i)  // promoted: see NativeHalf
    if (IsHalf(types[i])) a[i] = Cast(std::exchange(types[i], dtypes::float32), dtypes::float32, a[i]);
  if (!IsHalf(u->dtype())) return Alu(u->op(), u->dtype(), types, a);
  return Cast(dtypes::float32, u->dtype(), Alu(u->op(), dtypes::float32, types, a));
}

// |op| of values |a| of types |types| into a |dt|: scalar PTX, float16 only where NativeHalf.
std::string PtxEmitter::Alu(Ops op, DType dt, const std::vector<DType>& types, const std::vector<std::string>& a) {
  DType t = types[0];
  std::string rt = RegType(t);
  bool fl = t.is_float(), pred = t.is_bool();
  // |f| for floats, |i| for integers (typed by RegType, or by width for bitwise ops), |p| for bools.
  auto arith = [&](const char* f, const char* i, const char* p, bool bitwise = false) {
    std::string opcode = pred ? p : fl ? absl::StrCat(f, ".", rt) : absl::StrCat(i, ".", bitwise ? Bits(t) : rt);
    return Def(dt, opcode, {a[0], a[1]});
  };
  switch (op) {
    case Ops::kAdd: return arith("add", "add", "or.pred");
    case Ops::kMul: return arith("mul", "mul.lo", "and.pred");
    case Ops::kIdiv: case Ops::kFdiv: return arith("div.rn", "div", "and.pred");
    case Ops::kMod: return arith("rem", "rem", "and.pred");
    case Ops::kAnd: return arith("and", "and", "and.pred", true);
    case Ops::kOr: return arith("or", "or", "or.pred", true);
    case Ops::kXor: return arith("xor", "xor", "xor.pred", true);
    case Ops::kShl: case Ops::kShr: {  // the shift amount is always a .u32
      std::string amount = types[1].itemsize() == 4 ? a[1] : Cast(types[1], dtypes::uint32, a[1]);
      return Def(dt, op == Ops::kShl ? "shl." + Bits(t) : "shr." + rt, {a[0], amount});
    }
    case Ops::kCmpLt:
      if (pred) return Def(dt, "and.pred", {Def(dt, "not.pred", {a[0]}), a[1]});  // !a & b
      return Def(dt, "setp.lt." + rt, {a[0], a[1]});
    case Ops::kCmpEq:
      if (pred) return Def(dt, "not.pred", {Def(dt, "xor.pred", {a[0], a[1]})});
      return Def(dt, "setp.eq." + rt, {a[0], a[1]});
    case Ops::kCmpNe:
      if (pred) return Def(dt, "xor.pred", {a[0], a[1]});
      return Def(dt, fl ? "setp.neu." + rt : "setp.ne." + rt, {a[0], a[1]});  // C's != is unordered
    case Ops::kMax: {  // C: (a<b)?b:a, NaN included (max.f32 would drop the NaN)
      if (pred) return Def(dt, "or.pred", {a[0], a[1]});
      std::string lt = Def(dtypes::bool_, "setp.lt." + rt, {a[0], a[1]});
      return Def(dt, "selp." + MovType(t), {a[1], a[0], lt});
    }
    case Ops::kWhere: {
      DType vt = types[1];
      if (vt.is_bool())  // (c & a) | (!c & b)
        return Def(dt, "or.pred", {Def(dt, "and.pred", {a[0], a[1]}),
                                   Def(dt, "and.pred", {Def(dt, "not.pred", {a[0]}), a[2]})});
      return Def(dt, "selp." + MovType(vt), {a[1], a[2], a[0]});
    }
    case Ops::kMulAcc: return Def(dt, fl ? "fma.rn." + rt : "mad.lo." + rt, {a[0], a[1], a[2]});
    case Ops::kNeg: return Def(dt, pred ? "not.pred" : "neg." + (fl ? rt : absl::StrCat("s", Bits(t).substr(1))), {a[0]});
    case Ops::kReciprocal: return Def(dt, "rcp.rn." + rt, {a[0]});
    case Ops::kSqrt: return Def(dt, "sqrt.rn." + rt, {a[0]});
    case Ops::kTrunc: return Def(dt, absl::StrCat("cvt.rzi.", rt, ".", rt), {a[0]});
    case Ops::kExp2: case Ops::kLog2: case Ops::kSin: {
      if (t != dtypes::float32)
        throw Error("ptx renderer: " + std::string(OpName(op)) + " on " + t.name() +
                    " has no PTX instruction (render cuda-c instead)");
      const char* ins = op == Ops::kExp2 ? "ex2.approx.f32" : op == Ops::kLog2 ? "lg2.approx.f32" : "sin.approx.f32";
      return Def(dt, ins, {a[0]});
    }
    case Ops::kCast: return Cast(t, dt, a[0]);
    case Ops::kBitcast: return Def(dt, "mov." + Bits(dt), {a[0]});
    default: throw Error("ptx renderer: no spelling for " + std::string(OpName(op)));
  }
}

// The state space an INDEX points into: a DEFINE_LOCAL's array or a global buffer.
std::string Space(const UOpRef& index) { return index->src(0)->op() == Ops::kDefineLocal ? "shared" : "global"; }

std::string PtxEmitter::Address(const UOpRef& index) {
  const UOpRef &buf = index->src(0), &idx = index->src(1);
  int size = std::max(1, buf->dtype().base().itemsize());
  std::string offset = idx->dtype().itemsize() == 8 ? Def(dtypes::int64, "mul.lo.s64", {Of(idx), std::to_string(size)})
                                                     : Def(dtypes::int64, "mul.wide." + RegType(idx->dtype()),
                                                           {Of(idx), std::to_string(size)});
  return Def(dtypes::int64, "add.s64", {Of(buf), offset});
}

void PtxEmitter::Emit(const UOpRef& u, const std::string& name) {
  switch (u->op()) {
    case Ops::kDefineGlobal: {
      int64_t i = u->arg_as<int64_t>();
      std::string raw = Reg(dtypes::int64), global = Reg(dtypes::int64);
      absl::StrAppend(&prologue_, "\tld.param.u64 ", raw, ", [", name, "_param_", i, "];\n\tcvta.to.global.u64 ",
                      global, ", ", raw, ";\n");
      value_[u.get()] = global;
      break;
    }
    case Ops::kConst: EmitConst(u); break;
    case Ops::kDefineLocal: EmitLocal(u); break;
    case Ops::kBarrier: Ins("bar.sync 0"); break;  // the group's shared stores are visible after it
    case Ops::kDefineVar: break;  // a parameter, loaded in Run
    case Ops::kSpecial: {
      const std::string& s = u->arg_as<std::string>();
      if (s.size() != 5 || (s.rfind("gidx", 0) != 0 && s.rfind("lidx", 0) != 0) || s[4] < '0' || s[4] > '2')
        throw Error("ptx renderer: unsupported launch id " + s);
      std::string id = Def(dtypes::uint32, "mov.u32", {absl::StrCat(s[0] == 'g' ? "%ctaid." : "%tid.", std::string(1, "xyz"[s[4] - '0']))});
      value_[u.get()] = Cast(dtypes::uint32, u->dtype(), id);
      break;
    }
    case Ops::kRange: {
      std::string id = std::to_string(labels_++), i = Reg(u->dtype());
      Ins(absl::StrCat("mov.", Bits(u->dtype()), " ", i, ", 0"));
      body_ += "$L_loop" + id + ":\n";
      std::string done = Def(dtypes::bool_, "setp.ge." + RegType(u->dtype()), {i, Of(u->src(0))});
      Ins(absl::StrCat("@", done, " bra $L_exit", id));
      loops_.emplace_back(i, id);
      value_[u.get()] = i;
      break;
    }
    case Ops::kEnd: {
      auto [i, id] = loops_.back();
      loops_.pop_back();
      DType t = u->src(0)->dtype();
      Ins(absl::StrCat("add.", RegType(t), " ", i, ", ", i, ", 1"));
      Ins("bra.uni $L_loop" + id);
      body_ += "$L_exit" + id + ":\n";
      break;
    }
    case Ops::kDefineAcc: {  // registers are mutable: the accumulator is one register, ASSIGN a mov
      std::string r = Reg(u->dtype());
      DType d = u->dtype();
      Ins(absl::StrCat("mov.", MovType(d), " ", r, ", ", Of(u->src(0))));
      value_[u.get()] = r;
      reduce_acc_[u->src(1).get()] = r;
      break;
    }
    case Ops::kAssign: {
      DType d = u->src(0)->dtype();
      Ins(absl::StrCat("mov.", MovType(d), " ", Of(u->src(0)), ", ", Of(u->src(1))));
      break;
    }
    case Ops::kReduce: value_[u.get()] = reduce_acc_.at(u.get()); break;
    case Ops::kIndex: break;  // addresses are computed by the LOAD / STORE
    case Ops::kLoad: {
      DType d = u->dtype();
      const UOpRef& gate = u->src(0)->src(2);
      bool gated = !gate->is_const_value(true);
      std::string addr = Address(u->src(0)), raw = Reg(d.is_bool() ? dtypes::uint16 : d);
      if (gated)  // a masked-off load reads 0, as in C
        Ins(absl::StrCat("mov.", d.is_bool() ? "b16" : MovType(d), " ", raw, ", ",
                         d.is_float() ? Immediate(0.0, d) : "0"));
      Ins(absl::StrCat(gated ? "@" + Of(gate) + " " : "", "ld.", Space(u->src(0)), ".", MemType(d), " ", raw, ", [",
                       addr, "]"));
      value_[u.get()] = d.is_bool() ? Def(d, "setp.ne.u16", {raw, "0"}) : raw;
      break;
    }
    case Ops::kStore: {
      DType d = u->src(1)->dtype();
      const UOpRef& gate = u->src(0)->src(2);
      std::string addr = Address(u->src(0)), v = Of(u->src(1));
      if (d.is_bool()) v = Def(dtypes::uint16, "selp.b16", {"1", "0", v});
      Ins(absl::StrCat(gate->is_const_value(true) ? "" : "@" + Of(gate) + " ", "st.", Space(u->src(0)), ".",
                       MemType(d), " [", addr, "], ", v));
      break;
    }
    default: value_[u.get()] = Alu(u);
  }
}

std::string PtxEmitter::Run(const std::string& name, const std::vector<UOpRef>& ops, const std::string& header) {
  const KernelParams kernel_params = ScanParams(ops);
  const size_t buffers = kernel_params.buffers.size();
  // Variables are 32-bit parameters after the buffers, loaded once at the top.
  for (size_t i = 0; i < kernel_params.variables.size(); ++i) {
    std::string r = Reg(dtypes::int32);
    absl::StrAppend(&prologue_, "\tld.param.s32 ", r, ", [", name, "_param_", buffers + i, "];\n");
    value_[kernel_params.variables[i].get()] = r;
  }
  for (const UOpRef& u : ops) Emit(u, name);
  std::vector<std::string> params;
  for (size_t i = 0; i < buffers; ++i) params.push_back(absl::StrCat("\t.param .u64 ", name, "_param_", i));
  for (size_t i = 0; i < kernel_params.variables.size(); ++i)
    params.push_back(absl::StrCat("\t.param .s32 ", name, "_param_", buffers + i));
  std::string out = header + absl::StrCat(".visible .entry ", name, "(\n", absl::StrJoin(params, ",\n"), "\n)\n{\n");
  for (int c = 0; c < 6; ++c) absl::StrAppend(&out, "\t.reg ", kRegDecl[c], " ", kRegPrefix[c], "<", count_[c], ">;\n");
  return out + shared_ + prologue_ + body_ + "\tret;\n}\n";
}

}  // namespace

PtxRenderer::PtxRenderer(std::string arch) {
  int sm = 0;
  if (std::sscanf(arch.c_str(), "sm_%d", &sm) != 1 || sm < 50) sm = 90;
  sm_ = sm;
  arch_ = "sm_" + std::to_string(sm);
}

std::string PtxRenderer::Render(const std::string& name, const std::vector<UOpRef>& ops) const {
  // The oldest PTX ISA that knows the target (PTX ISA release notes): newer ISAs refuse older ptxas.
  const char* version = sm_ >= 120 ? "8.7" : sm_ >= 100 ? "8.6" : sm_ >= 89 ? "7.8" : sm_ >= 86 ? "7.1"
                        : sm_ >= 80 ? "7.0" : sm_ >= 75 ? "6.3" : "6.0";
  std::string header = absl::StrCat("//\n// ", name, ": generated by tinygrad-cc (ptx renderer)\n//\n.version ", version,
                                    "\n.target ", arch_, "\n.address_size 64\n\n");
  return PtxEmitter(sm_).Run(name, ops, header);
}

}  // namespace tg::compiler
