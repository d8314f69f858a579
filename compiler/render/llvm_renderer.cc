#include "compiler/render/llvm_renderer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/render/kernel_params.h"
#include "ir/error.h"

namespace tg::compiler {
namespace {

bool IsVector(DType dtype) { return dtype.count() > 1; }
bool IsVector(const UOpRef& u) { return IsVector(u->dtype()); }

// A double's bits in LLVM's hexadecimal float syntax. LLVM accepts it for every float type when the
// value is exact in that type, which CONSTs are (CastConst rounds them), so no decimal round trip.
std::string HexFloat(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llX", static_cast<unsigned long long>(bits));
  return buf;
}

std::string ScalarLiteral(const ConstValue& v, DType dtype) {
  if (dtype.is_bool()) return ConstToInt(v) != 0 ? "true" : "false";
  if (dtype.is_float()) {
    double d = ConstToDouble(v);
    if (dtype != dtypes::float64 && !std::isnan(d)) d = static_cast<float>(d);
    return HexFloat(d);
  }
  return std::to_string(ConstToInt(v));  // LLVM reads a 64-bit pattern of either sign
}

// The type suffix of an overloaded intrinsic: "f32", "v16f32", "f16".
std::string IntrinsicSuffix(DType dtype) {
  int bits = dtype.base().itemsize() * 8;
  std::string scalar = absl::StrCat(dtype.base().is_float() ? "f" : "i", bits);
  if (dtype.base() == dtypes::bfloat16) scalar = "bf16";
  return dtype.count() > 1 ? absl::StrCat("v", dtype.count(), scalar) : scalar;
}

// "i32" or "<4 x i32>".
std::string IntVectorType(int bits, int lanes) {
  return lanes > 1 ? absl::StrCat("<", lanes, " x i", bits, ">") : absl::StrCat("i", bits);
}

// The i32 constant |v| in every lane: "16" or "<i32 16, i32 16, ...>".
std::string IntSplat(int v, int lanes) {
  if (lanes == 1) return std::to_string(v);
  std::vector<std::string> each(lanes, absl::StrCat("i32 ", v));
  return absl::StrCat("<", absl::StrJoin(each, ", "), ">");
}

// The vector whose lanes |u| sums in lane order, (((v[0] + v[1]) + v[2]) + ... ) + v[n-1], as the
// vectorizer folds a reduce's partial lanes; null for anything else. Either operand order is taken at
// each add (float addition commutes; only the grouping matters). The chain's adds below |u| and its GEPs
// are appended to |links|.
UOpRef OrderedLaneSum(const UOpRef& u, std::vector<const UOp*>& links) {
  DType dt = u->dtype();
  if (u->op() != Ops::kAdd || (dt != dtypes::float32 && dt != dtypes::float64)) return nullptr;
  UOpRef vec, cur = u;
  int64_t lane = -1;
  while (cur->op() == Ops::kAdd && cur->dtype() == dt) {
    bool matched = false;
    for (int side : {1, 0}) {
      const UOpRef& gep = cur->src(side);
      if (gep->op() != Ops::kGep) continue;
      if (vec == nullptr) {
        vec = gep->src(0);
        lane = vec->dtype().count() - 1;
      }
      if (gep->src(0) != vec || gep->arg_as<int64_t>() != lane) continue;
      if (cur != u) links.push_back(cur.get());
      links.push_back(gep.get());
      cur = cur->src(1 - side);
      --lane;
      matched = true;
      break;
    }
    if (!matched) return nullptr;
  }
  if (lane != 0 || cur->op() != Ops::kGep || cur->src(0) != vec || cur->arg_as<int64_t>() != 0) return nullptr;
  links.push_back(cur.get());
  return vec;
}

// The per-kernel state of one rendering: the text so far and the name of every value.
class LlvmEmitter {
 public:
  std::string Run(const std::string& name, const std::vector<UOpRef>& ops);

 private:
  void Emit(const UOpRef& u);
  void Line(const std::string& text) { body_ += "  " + text + "\n"; }
  void Label(const std::string& label) {
    body_ += label + ":\n";
    block_ = label;
  }
  std::string Fresh(const char* prefix) { return absl::StrCat("%", prefix, counter_++); }
  // Defines a new value as |rhs| and returns its name.
  std::string Def(const std::string& rhs) {
    std::string v = Fresh("v");
    Line(v + " = " + rhs);
    return v;
  }
  // The operand text of |s| as used by |user|: accumulators are loaded at the point of use, and a
  // scalar used by a vector op is broadcast to the op's lane count.
  std::string Operand(const UOpRef& s, int lanes = 1);
  std::string Splat(const std::string& x, DType scalar, int lanes);
  std::string Alu(const UOpRef& u);
  std::string Math(const char* fn, DType dtype, const std::string& x);
  std::string Cast(DType from, DType to, const std::string& x);
  std::string FromBfloat16(DType from, DType to, const std::string& x);
  std::string ToBfloat16(DType from, DType to, const std::string& x);
  std::string Compare(Ops op, DType operand, const std::string& a, const std::string& b);
  void EmitRange(const UOpRef& u);
  void EmitEnd();
  // Finds the ordered lane sums among |ops| and the chain links they absorb.
  void FindLaneSums(const std::vector<UOpRef>& ops);
  // The loops whose body updates many accumulators.
  void FindWideReduceLoops(const std::vector<UOpRef>& ops);
  std::string LaneSum(const UOpRef& vec);
  // Groups the lane sums that can be computed together: same vector type, in one straight-line
  // stretch of the kernel, every vector defined before the first of them.
  void BatchLaneSums(const std::vector<UOpRef>& ops);
  // Every lane sum of |batch| (ADDs of lane_sums_) at once, each still in lane order.
  void EmitLaneSumBatch(const std::vector<const UOp*>& batch);
  // Finds the vectors stored lane by lane into a buffer the kernel never reads.
  void FindScatters(const std::vector<UOpRef>& ops);
  void EmitScatter(const UOpRef& vec, const std::vector<UOpRef>& lane_indices);
  void EmitLoad(const UOpRef& u);
  void EmitStore(const UOpRef& u);
  // The value of type |dt| at |ptr| (bools are stored as bytes).
  std::string LoadFrom(const std::string& ptr, DType dt);
  // A pointer to the element INDEX |index| addresses; its gate is the caller's to honour.
  std::string Address(const UOpRef& index);

  struct Loop {
    std::string var, header, latch, exit;
    DType dtype;
    bool keep_rolled;
  };
  std::string body_, allocas_, block_ = "entry";
  std::set<std::string> declares_;
  absl::flat_hash_map<const UOp*, std::string> value_;
  absl::flat_hash_map<const UOp*, std::string> acc_slot_;   // DEFINE_ACC -> its alloca
  absl::flat_hash_map<const UOp*, std::string> reduce_acc_;  // REDUCE -> the alloca of its DEFINE_ACC
  absl::flat_hash_map<const UOp*, UOpRef> lane_sums_;  // ADD -> the vector its chain sums
  absl::flat_hash_map<const UOp*, int> lane_sum_batch_;  // ADD -> its index in lane_sum_batches_
  std::vector<std::vector<const UOp*>> lane_sum_batches_;
  absl::flat_hash_set<const UOp*> absorbed_;                // chain links and lane stores folded into others
  struct Scatter {
    UOpRef vec;
    std::vector<UOpRef> lane_indices;  // INDEX of lane 0, 1, ...
  };
  absl::flat_hash_map<const UOp*, Scatter> scatters_;  // the last lane's STORE -> the whole vector's
  absl::flat_hash_set<const UOp*> keep_rolled_;             // RANGEs LLVM must not unroll
  int rolled_loops_ = 0;
  std::vector<Loop> loops_;
  int counter_ = 0;
};

std::string LlvmEmitter::Splat(const std::string& x, DType scalar, int lanes) {
  std::string vt = LlvmType(scalar.vec(lanes)), st = LlvmType(scalar);
  if (x.empty() || x[0] != '%') {  // a literal: a constant vector
    std::vector<std::string> elems(lanes, st + " " + x);
    return "<" + absl::StrJoin(elems, ", ") + ">";
  }
  std::string one = Def(absl::StrCat("insertelement ", vt, " poison, ", st, " ", x, ", i32 0"));
  return Def(absl::StrCat("shufflevector ", vt, " ", one, ", ", vt, " poison, <", lanes, " x i32> zeroinitializer"));
}

std::string LlvmEmitter::Operand(const UOpRef& s, int lanes) {
  std::string x;
  if (auto it = acc_slot_.find(s.get()); it != acc_slot_.end())
    x = Def(absl::StrCat("load ", LlvmType(s->dtype()), ", ptr ", it->second));
  else
    x = value_.at(s.get());
  return lanes > 1 && !IsVector(s) ? Splat(x, s->dtype(), lanes) : x;
}

std::string LlvmEmitter::Math(const char* fn, DType dtype, const std::string& x) {
  DType base = dtype.base();
  // Half types compute in float (as the C renderer does); float and double use their own intrinsic.
  DType calc = base == dtypes::float64 ? dtypes::float64 : dtypes::float32;
  DType calc_v = calc.vec(dtype.count());
  std::string arg = calc == base ? x : Cast(dtype, calc_v, x);
  std::string t = LlvmType(calc_v), callee = absl::StrCat("@llvm.", fn, ".", IntrinsicSuffix(calc_v));
  declares_.insert(absl::StrCat("declare ", t, " ", callee, "(", t, ")"));
  std::string r = Def(absl::StrCat("call ", t, " ", callee, "(", t, " ", arg, ")"));
  return calc == base ? r : Cast(calc_v, dtype, r);
}

std::string LlvmEmitter::Cast(DType from, DType to, const std::string& x) {
  std::string ft = LlvmType(from), tt = LlvmType(to);
  DType f = from.base(), t = to.base();
  if (f == t) return x;
  auto conv = [&](const char* op) { return Def(absl::StrCat(op, " ", ft, " ", x, " to ", tt)); };
  if (f == dtypes::bfloat16) return FromBfloat16(from, to, x);  // every use of a bfloat goes through float
  if (t == dtypes::bfloat16) return ToBfloat16(from, to, x);
  if (t.is_bool()) {  // C's (_Bool)x: nonzero is true (NaN too: une)
    std::string zero = from.count() > 1 ? "zeroinitializer" : (f.is_float() ? "0.0" : "0");
    return Def(absl::StrCat(f.is_float() ? "fcmp une " : "icmp ne ", ft, " ", x, ", ", zero));
  }
  if (f.is_bool()) return conv(t.is_float() ? "uitofp" : "zext");
  if (f.is_float() && t.is_float()) return conv(f.itemsize() < t.itemsize() ? "fpext" : "fptrunc");
  if (f.is_float()) return conv(t.is_unsigned() ? "fptoui" : "fptosi");
  if (t.is_float()) return conv(f.is_unsigned() ? "uitofp" : "sitofp");
  if (f.itemsize() == t.itemsize()) return x;  // int32 <-> uint32: same bits
  if (f.itemsize() > t.itemsize()) return conv("trunc");
  return conv(f.is_unsigned() ? "zext" : "sext");
}

// bfloat16 <-> float as integer operations on the bits, never fpext/fptrunc on bfloat: LLVM 15 lowers
// fptrunc to bfloat to a compiler-rt call (__truncsfbf2) the JIT cannot resolve, and on AVX512-FP16 CPUs
// (Sapphire Rapids) its x86 back end aborts on fpext from bfloat ("Cannot select: f16 = fp_extend") once
// -O2 has run. Widening is exact: the 16 bits become the top half of a float.
std::string LlvmEmitter::FromBfloat16(DType from, DType to, const std::string& x) {
  int lanes = from.count();
  DType f32 = dtypes::float32.vec(lanes);
  std::string i16 = IntVectorType(16, lanes), i32 = IntVectorType(32, lanes);
  std::string wide = Def("zext " + i16 + " " + Def("bitcast " + LlvmType(from) + " " + x + " to " + i16) + " to " + i32);
  std::string f = Def("bitcast " + i32 + " " + Def("shl " + i32 + " " + wide + ", " + IntSplat(16, lanes)) + " to " +
                      LlvmType(f32));
  return to.base() == dtypes::float32 ? f : Cast(f32, to, f);
}

// Narrowing rounds to nearest even on the bits and keeps a NaN quiet, as the C renderer does.
std::string LlvmEmitter::ToBfloat16(DType from, DType to, const std::string& x) {
  int lanes = from.count();
  DType f32t = dtypes::float32.vec(lanes);
  std::string f32 = from.base() == dtypes::float32 ? x : Cast(from, f32t, x);
  std::string i32 = IntVectorType(32, lanes), i16 = IntVectorType(16, lanes);
  auto k = [&](int v) { return IntSplat(v, lanes); };
  std::string u = Def("bitcast " + LlvmType(f32t) + " " + f32 + " to " + i32);
  std::string top = Def("lshr " + i32 + " " + u + ", " + k(16));
  std::string lsb = Def("and " + i32 + " " + top + ", " + k(1));
  std::string bias = Def("add " + i32 + " " + k(32767) + ", " + lsb);
  std::string rounded = Def("lshr " + i32 + " " + Def("add " + i32 + " " + u + ", " + bias) + ", " + k(16));
  std::string nan = Def("or " + i32 + " " + top + ", " + k(64));
  std::string is_nan = Def("fcmp uno " + LlvmType(f32t) + " " + f32 + ", " + f32);
  std::string bits = Def("select " + std::string(lanes > 1 ? absl::StrCat("<", lanes, " x i1>") : "i1") + " " + is_nan +
                         ", " + i32 + " " + nan + ", " + i32 + " " + rounded);
  return Def("bitcast " + i16 + " " + Def("trunc " + i32 + " " + bits + " to " + i16) + " to " + LlvmType(to));
}

std::string LlvmEmitter::Compare(Ops op, DType operand, const std::string& a, const std::string& b) {
  const char* pred;
  bool fl = operand.is_float();
  // Ordered < and ==, unordered !=: exactly C's comparisons, NaN included.
  if (op == Ops::kCmpLt) pred = fl ? "fcmp olt" : (operand.is_unsigned() || operand.is_bool() ? "icmp ult" : "icmp slt");
  else if (op == Ops::kCmpEq) pred = fl ? "fcmp oeq" : "icmp eq";
  else pred = fl ? "fcmp une" : "icmp ne";
  return Def(absl::StrCat(pred, " ", LlvmType(operand), " ", a, ", ", b));
}

std::string LlvmEmitter::Alu(const UOpRef& u) {
  DType dt = u->dtype();
  int n = dt.count();
  Ops op = u->op();
  if (op == Ops::kGep)
    return Def(absl::StrCat("extractelement ", LlvmType(u->src(0)->dtype()), " ", Operand(u->src(0)), ", i32 ",
                            u->arg_as<int64_t>()));
  if (op == Ops::kWhere) {  // select takes a scalar condition with vector operands, as C's ?: does
    std::string c = Operand(u->src(0)), a = Operand(u->src(1), n), b = Operand(u->src(2), n);
    std::string t = LlvmType(dt);
    return Def(absl::StrCat("select ", LlvmType(u->src(0)->dtype()), " ", c, ", ", t, " ", a, ", ", t, " ", b));
  }
  DType operand = u->src(0)->dtype().base().vec(n);
  std::vector<std::string> a;
  for (const UOpRef& s : u->src()) a.push_back(Operand(s, n));
  std::string t = LlvmType(operand);
  bool fl = operand.is_float(), un = operand.is_unsigned() || operand.is_bool();
  auto bin = [&](const char* f_op, const char* i_op) {
    return Def(absl::StrCat(fl ? f_op : i_op, " ", t, " ", a[0], ", ", a[1]));
  };
  // "contract" lets LLVM fuse a*b+c into one FMA, as gcc does for the C dialect (GNU C's default
  // -ffp-contract=fast): without it a matmul's inner loop is a multiply and a dependent add.
  switch (op) {
    case Ops::kAdd: return bin("fadd contract", "add");
    case Ops::kMul: return bin("fmul contract", "mul");
    case Ops::kFdiv: return bin("fdiv", un ? "udiv" : "sdiv");
    case Ops::kIdiv: return bin("fdiv", un ? "udiv" : "sdiv");
    case Ops::kMod: return bin("frem", un ? "urem" : "srem");
    case Ops::kXor: return bin("xor", "xor");
    case Ops::kOr: return bin("or", "or");
    case Ops::kAnd: return bin("and", "and");
    case Ops::kShl: return bin("shl", "shl");
    case Ops::kShr: return bin("lshr", un ? "lshr" : "ashr");
    case Ops::kCmpLt: case Ops::kCmpNe: case Ops::kCmpEq: return Compare(op, operand, a[0], a[1]);
    case Ops::kMax: {  // C: (a<b)?b:a
      std::string lt = Compare(Ops::kCmpLt, operand, a[0], a[1]);
      return Def(absl::StrCat("select ", LlvmType(dtypes::bool_.vec(n)), " ", lt, ", ", t, " ", a[1], ", ", t, " ", a[0]));
    }
    case Ops::kNeg:
      if (fl) return Def(absl::StrCat("fneg ", t, " ", a[0]));
      if (operand.is_bool()) return Def(absl::StrCat("xor ", t, " ", a[0], ", ", n > 1 ? Splat("true", dtypes::bool_, n) : "true"));
      return Def(absl::StrCat("sub ", t, " ", n > 1 ? "zeroinitializer" : "0", ", ", a[0]));
    case Ops::kReciprocal: {
      std::string one = n > 1 ? Splat(HexFloat(1.0), dt.base(), n) : HexFloat(1.0);
      return Def(absl::StrCat("fdiv ", t, " ", one, ", ", a[0]));
    }
    case Ops::kMulAcc: {
      if (!fl) return Def(absl::StrCat("add ", t, " ", Def(absl::StrCat("mul ", t, " ", a[0], ", ", a[1])), ", ", a[2]));
      std::string callee = "@llvm.fmuladd." + IntrinsicSuffix(operand);
      declares_.insert(absl::StrCat("declare ", t, " ", callee, "(", t, ", ", t, ", ", t, ")"));
      return Def(absl::StrCat("call ", t, " ", callee, "(", t, " ", a[0], ", ", t, " ", a[1], ", ", t, " ", a[2], ")"));
    }
    case Ops::kExp2: return Math("exp2", dt, a[0]);
    case Ops::kLog2: return Math("log2", dt, a[0]);
    case Ops::kSin: return Math("sin", dt, a[0]);
    case Ops::kSqrt: return Math("sqrt", dt, a[0]);
    case Ops::kTrunc: return Math("trunc", dt, a[0]);
    case Ops::kCast: return Cast(operand, dt, a[0]);
    case Ops::kBitcast: return Def(absl::StrCat("bitcast ", t, " ", a[0], " to ", LlvmType(dt)));
    default:
      throw Error("llvm-ir renderer: no spelling for " + std::string(OpName(op)));
  }
}

std::string LlvmEmitter::Address(const UOpRef& index) {
  const UOpRef &buf = index->src(0), &idx = index->src(1);
  return Def(absl::StrCat("getelementptr inbounds ", LlvmMemType(buf->dtype().base()), ", ptr ", Operand(buf), ", ",
                          LlvmType(idx->dtype()), " ", Operand(idx)));
}

void LlvmEmitter::EmitLoad(const UOpRef& u) {
  const UOpRef& index = u->src(0);
  const UOpRef& gate = index->src(2);
  DType dt = u->dtype();
  if (IsVector(gate)) {  // a lane mask: masked-off lanes read 0 and touch no memory
    std::string vt = LlvmType(dt), mt = LlvmType(gate->dtype());
    std::string callee = absl::StrCat("@llvm.masked.load.", IntrinsicSuffix(dt), ".p0");
    declares_.insert(absl::StrCat("declare ", vt, " ", callee, "(ptr, i32, ", mt, ", ", vt, ")"));
    std::string ptr = Address(index);
    value_[u.get()] = Def(absl::StrCat("call ", vt, " ", callee, "(ptr ", ptr, ", i32 ", dt.base().itemsize(), ", ", mt,
                                       " ", Operand(gate), ", ", vt, " zeroinitializer)"));
    return;
  }
  if (gate->is_const_value(true)) {
    value_[u.get()] = LoadFrom(Address(index), dt);
    return;
  }
  // A masked-off load reads 0, as in C. A branch around the load rather than a select: LLVM sinks the
  // address arithmetic into the taken block, so a reduce over a concatenation (one gate per source, one
  // true at a time) computes one address per step instead of every source's, as gcc does with C's ?:.
  std::string id = std::to_string(counter_++), from = block_;
  std::string taken = "ld" + id, join = "ld" + id + ".join";
  Line(absl::StrCat("br i1 ", Operand(gate), ", label %", taken, ", label %", join));
  Label(taken);
  std::string v = LoadFrom(Address(index), dt), loaded_in = block_;
  Line("br label %" + join);
  Label(join);
  value_[u.get()] = Def(absl::StrCat("phi ", LlvmType(dt), " [", v, ", %", loaded_in, "], [zeroinitializer, %", from, "]"));
}

std::string LlvmEmitter::LoadFrom(const std::string& ptr, DType dt) {
  std::string mt = LlvmMemType(dt);
  std::string v = Def(absl::StrCat("load ", mt, ", ptr ", ptr, ", align ", dt.base().is_bool() ? 1 : dt.base().itemsize()));
  if (dt.base().is_bool()) v = Def(absl::StrCat("icmp ne ", mt, " ", v, ", ", IsVector(dt) ? "zeroinitializer" : "0"));
  return v;
}

void LlvmEmitter::EmitStore(const UOpRef& u) {
  const UOpRef& index = u->src(0);
  const UOpRef& gate = index->src(2);
  const UOpRef& val = u->src(1);
  if (IsVector(gate)) {  // a lane mask: masked-off lanes touch no memory
    DType dt = val->dtype();
    std::string vt = LlvmType(dt), mt = LlvmType(gate->dtype());
    std::string callee = absl::StrCat("@llvm.masked.store.", IntrinsicSuffix(dt), ".p0");
    declares_.insert(absl::StrCat("declare void ", callee, "(", vt, ", ptr, i32, ", mt, ")"));
    std::string ptr = Address(index);
    Line(absl::StrCat("call void ", callee, "(", vt, " ", Operand(val), ", ptr ", ptr, ", i32 ", dt.base().itemsize(),
                      ", ", mt, " ", Operand(gate), ")"));
    return;
  }
  std::string skip;
  if (!gate->is_const_value(true)) {  // a branch, not a select: the address may be out of bounds
    std::string id = std::to_string(counter_++);
    skip = "st" + id + ".skip";
    Line(absl::StrCat("br i1 ", Operand(gate), ", label %st", id, ", label %", skip));
    Label("st" + id);
  }
  std::string ptr = Address(index), x = Operand(val);
  DType dt = val->dtype();
  if (dt.base().is_bool()) x = Def(absl::StrCat("zext ", LlvmType(dt), " ", x, " to ", LlvmMemType(dt)));
  Line(absl::StrCat("store ", LlvmMemType(dt), " ", x, ", ptr ", ptr, ", align ",
                    dt.base().is_bool() ? 1 : dt.base().itemsize()));
  if (!skip.empty()) {
    Line("br label %" + skip);
    Label(skip);
  }
}

void LlvmEmitter::EmitRange(const UOpRef& u) {
  std::string id = std::to_string(counter_++);
  Loop loop{"%ridx" + id, "loop" + id, "loop" + id + ".latch", "loop" + id + ".exit", u->dtype(),
            keep_rolled_.contains(u.get())};
  std::string end = Operand(u->src(0)), t = LlvmType(u->dtype());
  std::string pre = block_;
  Line("br label %" + loop.header);
  Label(loop.header);
  Line(absl::StrCat(loop.var, " = phi ", t, " [0, %", pre, "], [", loop.var, ".next, %", loop.latch, "]"));
  Line(absl::StrCat(loop.var, ".c = icmp slt ", t, " ", loop.var, ", ", end));
  Line(absl::StrCat("br i1 ", loop.var, ".c, label %loop", id, ".body, label %", loop.exit));
  Label("loop" + id + ".body");
  value_[u.get()] = loop.var;
  loops_.push_back(loop);
}

void LlvmEmitter::EmitEnd() {
  Loop loop = loops_.back();
  loops_.pop_back();
  Line("br label %" + loop.latch);
  Label(loop.latch);
  Line(absl::StrCat(loop.var, ".next = add nsw ", LlvmType(loop.dtype), " ", loop.var, ", 1"));
  // !0 is llvm.loop.unroll.disable; each rolled loop needs its own distinct node naming itself.
  if (loop.keep_rolled) Line(absl::StrCat("br label %", loop.header, ", !llvm.loop !", ++rolled_loops_));
  else Line("br label %" + loop.header);
  Label(loop.exit);
}

void LlvmEmitter::Emit(const UOpRef& u) {
  if (absorbed_.contains(u.get())) return;
  if (auto it = scatters_.find(u.get()); it != scatters_.end()) return EmitScatter(it->second.vec, it->second.lane_indices);
  if (auto it = lane_sums_.find(u.get()); it != lane_sums_.end()) {
    if (value_.contains(u.get())) return;  // summed with its batch
    const std::vector<const UOp*>& batch = lane_sum_batches_[lane_sum_batch_.at(u.get())];
    if (batch.size() > 1) EmitLaneSumBatch(batch);
    else value_[u.get()] = LaneSum(it->second);
    return;
  }
  switch (u->op()) {
    case Ops::kDefineGlobal: value_[u.get()] = absl::StrCat("%data", u->arg_as<int64_t>()); break;
    case Ops::kDefineVar: break;  // a parameter, named in Run
    case Ops::kConst: value_[u.get()] = ScalarLiteral(u->const_value(), u->dtype()); break;
    case Ops::kSpecial: {
      const std::string& name = u->arg_as<std::string>();
      if (name.size() != 5 || name.rfind("gidx", 0) != 0 || name[4] < '0' || name[4] > '2')
        throw Error("llvm-ir renderer: unsupported launch id " + name);
      // tg_c_workgroup_state: uint64 struct_size, then uint32 group_id[3].
      std::string p = Def(absl::StrCat("getelementptr inbounds i8, ptr %w, i64 ", 8 + 4 * (name[4] - '0')));
      std::string id = Def("load i32, ptr " + p + ", align 4");
      value_[u.get()] = Cast(dtypes::int32, u->dtype(), id);
      break;
    }
    case Ops::kRange: EmitRange(u); break;
    case Ops::kEnd: EmitEnd(); break;
    case Ops::kDefineAcc: {
      std::string slot = Fresh("acc");
      absl::StrAppend(&allocas_, "  ", slot, " = alloca ", LlvmType(u->dtype()), "\n");
      Line(absl::StrCat("store ", LlvmType(u->dtype()), " ", Operand(u->src(0), u->dtype().count()), ", ptr ", slot));
      acc_slot_[u.get()] = slot;
      reduce_acc_[u->src(1).get()] = slot;
      break;
    }
    case Ops::kAssign:
      Line(absl::StrCat("store ", LlvmType(u->src(0)->dtype()), " ", Operand(u->src(1), u->src(0)->dtype().count()),
                        ", ptr ", acc_slot_.at(u->src(0).get())));
      break;
    case Ops::kReduce:
      value_[u.get()] = Def(absl::StrCat("load ", LlvmType(u->dtype()), ", ptr ", reduce_acc_.at(u.get())));
      break;
    case Ops::kIndex: break;  // folded into the LOAD / STORE that uses it
    case Ops::kLoad: EmitLoad(u); break;
    case Ops::kStore: EmitStore(u); break;
    case Ops::kVectorize: {
      std::string v = "poison", t = LlvmType(u->dtype()), et = LlvmType(u->dtype().base());
      for (size_t i = 0; i < u->src().size(); ++i)
        v = Def(absl::StrCat("insertelement ", t, " ", v, ", ", et, " ", Operand(u->src(i)), ", i32 ", i));
      value_[u.get()] = v;
      break;
    }
    default: value_[u.get()] = Alu(u);
  }
}

// One call instead of a lane-by-lane chain: LLVM lowers an ordered (non-reassoc) reduce to the same
// sequence of adds, but a 16-lane sum is one line to parse and optimize instead of 31, which a cold
// start pays for in every tiled reduce.
void LlvmEmitter::FindLaneSums(const std::vector<UOpRef>& ops) {
  absl::flat_hash_map<const UOp*, int> uses;
  for (const UOpRef& u : ops)
    for (const UOpRef& s : u->src()) ++uses[s.get()];
  for (const UOpRef& u : ops) {
    std::vector<const UOp*> links;
    UOpRef vec = OrderedLaneSum(u, links);
    if (vec == nullptr) continue;
    bool private_chain = true;  // an inner partial sum someone else reads must stay a value
    for (const UOp* link : links)
      if (link->op() == Ops::kAdd && uses[link] != 1) private_chain = false;
    if (!private_chain) continue;
    lane_sums_[u.get()] = vec;
    for (const UOp* link : links)
      if (uses[link] == 1) absorbed_.insert(link);
  }
}

// A register tile ends in one lane sum per accumulator, each a serial chain of L - 1 scalar adds and
// lane extracts: for a 4x4 tile of 16 lanes, 240 of each after a K loop of a few hundred FMAs. Summed
// together, the N vectors are transposed (log2 N rounds of two-source interleaves, N per round) so
// that vector l holds lane l of every accumulator, and the L vectors are added in lane order: L - 1
// vector adds give every sum with the same grouping, ((v[0] + v[1]) + v[2]) + ..., bit for bit.
void LlvmEmitter::BatchLaneSums(const std::vector<UOpRef>& ops) {
  absl::flat_hash_map<const UOp*, int> position;
  int stretch = 0;
  struct Open {
    int stretch = -1, leader_position = 0;
    DType dtype;
  } open;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const UOpRef& u = ops[i];
    position[u.get()] = i;
    switch (u->op()) {
      case Ops::kRange: case Ops::kEnd: case Ops::kIf: case Ops::kEndIf: case Ops::kBarrier: ++stretch; break;
      default: break;
    }
    auto sum = lane_sums_.find(u.get());
    if (sum == lane_sums_.end()) continue;
    DType dt = sum->second->dtype();
    auto vec_at = position.find(sum->second.get());
    bool joins = open.stretch == stretch && open.dtype == dt && vec_at != position.end() &&
                 vec_at->second < open.leader_position &&
                 static_cast<int>(lane_sum_batches_.back().size()) < dt.count();
    if (!joins) {
      lane_sum_batches_.emplace_back();
      open = {stretch, i, dt};
    }
    lane_sum_batch_[u.get()] = static_cast<int>(lane_sum_batches_.size()) - 1;
    lane_sum_batches_.back().push_back(u.get());
  }
}

void LlvmEmitter::EmitLaneSumBatch(const std::vector<const UOp*>& batch) {
  DType dt = lane_sums_.at(batch.front())->dtype();
  const int lanes = dt.count(), n = static_cast<int>(batch.size());
  if ((lanes & (lanes - 1)) != 0) {
    for (const UOp* u : batch) value_[u] = LaneSum(lane_sums_.at(u));
    return;
  }
  int rows = 1;
  while (rows < n) rows *= 2;  // <= lanes: a batch never holds more sums than lanes
  std::string vt = LlvmType(dt), st = LlvmType(dt.base()), rt = LlvmType(dt.base().vec(rows));
  std::vector<std::string> row(rows, "zeroinitializer");
  for (int j = 0; j < n; ++j) row[j] = Operand(lane_sums_.at(batch[j]));
  auto mask = [](const std::vector<int>& picks) {
    std::vector<std::string> each;
    for (int p : picks) each.push_back(absl::StrCat("i32 ", p));
    return absl::StrCat("<", absl::StrJoin(each, ", "), ">");
  };
  std::vector<int> low, high;
  for (int t = 0; t < lanes / 2; ++t) {
    low.insert(low.end(), {t, lanes + t});
    high.insert(high.end(), {lanes / 2 + t, lanes + lanes / 2 + t});
  }
  // Interleaving rows r and r + bit moves the row's bit into the lane's lowest bit and the lane's top
  // bit into the row: after the rounds (top bit first), lane c of row r holds accumulator c % rows's
  // lane r * (lanes / rows) + c / rows.
  for (int bit = rows / 2; bit >= 1; bit /= 2)
    for (int r = 0; r < rows; ++r) {
      if (r & bit) continue;
      std::string a = row[r], b = row[r + bit];
      row[r] = Def(absl::StrCat("shufflevector ", vt, " ", a, ", ", vt, " ", b, ", <", lanes, " x i32> ", mask(low)));
      row[r + bit] = Def(absl::StrCat("shufflevector ", vt, " ", a, ", ", vt, " ", b, ", <", lanes, " x i32> ", mask(high)));
    }
  const int chunks = lanes / rows;
  std::string sum;
  for (int l = 0; l < lanes; ++l) {
    std::string lane_l = row[l / chunks];
    if (chunks > 1) {
      std::vector<int> picks;
      for (int j = 0; j < rows; ++j) picks.push_back((l % chunks) * rows + j);
      lane_l = Def(absl::StrCat("shufflevector ", vt, " ", lane_l, ", ", vt, " poison, <", rows, " x i32> ", mask(picks)));
    }
    sum = l == 0 ? lane_l : Def(absl::StrCat("fadd ", rt, " ", sum, ", ", lane_l));
  }
  for (int j = 0; j < n; ++j) value_[batch[j]] = Def(absl::StrCat("extractelement ", rt, " ", sum, ", i32 ", j));
}

// A loop updating four or more accumulators is already a register tile: LLVM's unroller would copy the
// tile's body (and its compile time) for no gain, since the adds are independent already.
void LlvmEmitter::FindWideReduceLoops(const std::vector<UOpRef>& ops) {
  constexpr int kTileAccumulators = 4;
  std::vector<std::pair<const UOp*, int>> open;  // RANGE, accumulator updates directly inside it
  for (const UOpRef& u : ops) {
    if (u->op() == Ops::kRange) open.emplace_back(u.get(), 0);
    if (u->op() == Ops::kAssign && !open.empty()) ++open.back().second;
    if (u->op() == Ops::kEnd && !open.empty()) {
      if (open.back().second >= kTileAccumulators) keep_rolled_.insert(open.back().first);
      open.pop_back();
    }
  }
}

// A vector whose lanes go to strided addresses (a weight gradient vectorized along the axis its
// store does not walk) is stored lane by lane: an extract, an address and a store per lane, which
// LLVM's SLP vectorizer then spends a long compile on (W5's 16-accumulator weight gradient: 0.57 s of
// compile for 256 lane stores). One masked scatter of the vector says the same in one call. The lane
// stores move to the last lane's place, which is safe only where nothing reads the buffer between
// them: the kernel reads it nowhere.
void LlvmEmitter::FindScatters(const std::vector<UOpRef>& ops) {
  constexpr int kMinLanes = 4;
  absl::flat_hash_map<const UOp*, int> uses;
  absl::flat_hash_set<const UOp*> read;
  for (const UOpRef& u : ops) {
    for (const UOpRef& s : u->src()) ++uses[s.get()];
    if (u->op() == Ops::kLoad) read.insert(u->src(0)->src(0).get());
  }
  struct LaneStore {
    int64_t lane;
    UOpRef store;
  };
  absl::flat_hash_map<const UOp*, std::vector<LaneStore>> by_vector;
  for (const UOpRef& u : ops) {
    if (u->op() != Ops::kStore) continue;
    const UOpRef &index = u->src(0), &val = u->src(1);
    DType dt = val->dtype();
    if (val->op() != Ops::kGep || uses[val.get()] != 1 || !index->src(2)->is_const_value(true)) continue;
    if (dt.base().itemsize() != 4 || dt.is_bool() || read.contains(index->src(0).get())) continue;
    by_vector[val->src(0).get()].push_back({val->arg_as<int64_t>(), u});
  }
  for (auto& [vec, stores] : by_vector) {
    int lanes = vec->dtype().count();
    if (lanes < kMinLanes || static_cast<int>(stores.size()) != lanes) continue;
    std::vector<UOpRef> lane_indices(lanes);
    const UOp* buf = stores.front().store->src(0)->src(0).get();
    bool whole = true;
    for (const LaneStore& ls : stores) {
      const UOpRef& index = ls.store->src(0);
      if (ls.lane < 0 || ls.lane >= lanes || lane_indices[ls.lane] != nullptr || index->src(0).get() != buf) whole = false;
      else lane_indices[ls.lane] = index;
    }
    if (!whole) continue;
    // |stores| is in program order: the last one is where every lane's address is computed.
    for (size_t i = 0; i + 1 < stores.size(); ++i) absorbed_.insert(stores[i].store.get());
    for (const LaneStore& ls : stores) absorbed_.insert(ls.store->src(1).get());
    scatters_[stores.back().store.get()] = {stores.back().store->src(1)->src(0), std::move(lane_indices)};
  }
}

void LlvmEmitter::EmitScatter(const UOpRef& vec, const std::vector<UOpRef>& lane_indices) {
  DType dt = vec->dtype();
  int lanes = dt.count();
  const UOpRef& buf = lane_indices[0]->src(0);
  DType index_dtype = lane_indices[0]->src(1)->dtype();
  std::string it = LlvmType(index_dtype.vec(lanes)), et = LlvmType(index_dtype), offsets = "poison";
  for (int c = 0; c < lanes; ++c)
    offsets = Def(absl::StrCat("insertelement ", it, " ", offsets, ", ", et, " ", Operand(lane_indices[c]->src(1)), ", i32 ", c));
  std::string pt = absl::StrCat("<", lanes, " x ptr>"), vt = LlvmType(dt), mt = LlvmType(dtypes::bool_.vec(lanes));
  std::string ptrs = Def(absl::StrCat("getelementptr inbounds ", LlvmMemType(dt.base()), ", ptr ", Operand(buf), ", ", it, " ", offsets));
  std::string callee = absl::StrCat("@llvm.masked.scatter.", IntrinsicSuffix(dt), ".v", lanes, "p0");
  declares_.insert(absl::StrCat("declare void ", callee, "(", vt, ", ", pt, ", i32, ", mt, ")"));
  Line(absl::StrCat("call void ", callee, "(", vt, " ", Operand(vec), ", ", pt, " ", ptrs, ", i32 ", dt.base().itemsize(),
                    ", ", mt, " ", Splat("true", dtypes::bool_, lanes), ")"));
}

std::string LlvmEmitter::LaneSum(const UOpRef& vec) {
  DType dt = vec->dtype();
  std::string vt = LlvmType(dt), st = LlvmType(dt.base());
  std::string callee = absl::StrCat("@llvm.vector.reduce.fadd.", IntrinsicSuffix(dt));
  declares_.insert(absl::StrCat("declare ", st, " ", callee, "(", st, ", ", vt, ")"));
  // -0.0 is the identity of ordered float addition (+0.0 would turn a sum of -0.0s into +0.0).
  return Def(absl::StrCat("call ", st, " ", callee, "(", st, " ", HexFloat(-0.0), ", ", vt, " ", Operand(vec), ")"));
}

std::string LlvmEmitter::Run(const std::string& name, const std::vector<UOpRef>& ops) {
  const KernelParams kernel_params = ScanParams(ops);
  FindLaneSums(ops);
  BatchLaneSums(ops);
  FindWideReduceLoops(ops);
  FindScatters(ops);
  for (size_t i = 0; i < kernel_params.variables.size(); ++i)
    value_[kernel_params.variables[i].get()] = "%" + KernelParams::VariableName(i);
  for (const UOpRef& u : ops) Emit(u);

  std::vector<std::string> params, args;
  std::string entry;
  for (size_t i = 0; i < kernel_params.buffers.size(); ++i) {
    // tg_c_dispatch_state.buffers is the pointer at byte 40.
    params.push_back(absl::StrCat("ptr noalias ", kernel_params.written[i] ? "" : "readonly ", "%data", i));
    absl::StrAppend(&entry, "  %b", i, ".p = getelementptr inbounds ptr, ptr %bufs, i64 ", i, "\n  %b", i,
                    " = load ptr, ptr %b", i, ".p, align 8\n");
    args.push_back(absl::StrCat("ptr %b", i));
  }
  // tg_c_dispatch_state.scalars, at byte 48, holds each scalar argument widened to 64 bits.
  if (!kernel_params.variables.empty())
    absl::StrAppend(&entry, "  %scalars.p = getelementptr inbounds i8, ptr %d, i64 48\n",
                    "  %scalars = load ptr, ptr %scalars.p, align 8\n");
  for (size_t i = 0; i < kernel_params.variables.size(); ++i) {
    std::string var = KernelParams::VariableName(i);
    params.push_back("i32 %" + var);
    absl::StrAppend(&entry, "  %", var, ".p = getelementptr inbounds i64, ptr %scalars, i64 ", i, "\n  %", var,
                    ".w = load i64, ptr %", var, ".p, align 8\n  %", var, " = trunc i64 %", var, ".w to i32\n");
    args.push_back("i32 %" + var);
  }
  params.push_back("ptr %w");
  args.push_back("ptr %w");
  std::string out = absl::StrCat("; kernel ", name, " (tinygrad-cc llvm-ir dialect)\n");
  absl::StrAppend(&out, "define internal void @", name, ".body(", absl::StrJoin(params, ", "),
                  ") alwaysinline nounwind {\nentry:\n", allocas_, body_, "  ret void\n}\n\n");
  absl::StrAppend(&out, "define i32 @", name, "(ptr noalias nocapture readonly %d, ptr noalias nocapture readonly %w) nounwind {\n",
                  "entry:\n  %bufs.p = getelementptr inbounds i8, ptr %d, i64 40\n",
                  "  %bufs = load ptr, ptr %bufs.p, align 8\n", entry, "  call void @", name, ".body(",
                  absl::StrJoin(args, ", "), ")\n  ret i32 0\n}\n");
  for (const std::string& d : declares_) absl::StrAppend(&out, "\n", d);
  if (rolled_loops_ > 0) absl::StrAppend(&out, "\n!0 = !{!\"llvm.loop.unroll.disable\"}");
  for (int i = 1; i <= rolled_loops_; ++i) absl::StrAppend(&out, "\n!", i, " = distinct !{!", i, ", !0}");
  return out + "\n";
}

}  // namespace

std::string LlvmType(DType dtype) {
  std::string base;
  switch (dtype.scalar()) {
    case ScalarType::kBool: base = "i1"; break;
    case ScalarType::kInt8: case ScalarType::kUInt8: base = "i8"; break;
    case ScalarType::kInt16: case ScalarType::kUInt16: base = "i16"; break;
    case ScalarType::kInt32: case ScalarType::kUInt32: base = "i32"; break;
    case ScalarType::kInt64: case ScalarType::kUInt64: base = "i64"; break;
    case ScalarType::kFloat16: base = "half"; break;
    case ScalarType::kBFloat16: base = "bfloat"; break;
    case ScalarType::kFloat32: base = "float"; break;
    case ScalarType::kFloat64: base = "double"; break;
    case ScalarType::kVoid: base = "void"; break;
  }
  return dtype.count() > 1 ? absl::StrCat("<", dtype.count(), " x ", base, ">") : base;
}

std::string LlvmMemType(DType dtype) {
  return dtype.base().is_bool() ? LlvmType(dtypes::int8.vec(dtype.count())) : LlvmType(dtype);
}

std::string LlvmRenderer::Render(const std::string& name, const std::vector<UOpRef>& ops) const {
  return LlvmEmitter().Run(name, ops);
}

}  // namespace tg::compiler
