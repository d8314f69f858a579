// uop_program.cc: the tg-uops parser: one pass over the text, no allocation per token, then the
// checks that keep the interpreter's assumptions (dtypes of sources, loop nesting) true.
#include "plugins/cpu/uop_program.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/cpu/half_float.h"

namespace tg_cpu::uops {
namespace {

constexpr const char* kOpNames[] = {
#define TG_UOPS_OP_NAME(name) #name,
    TG_UOPS_OPS(TG_UOPS_OP_NAME)
#undef TG_UOPS_OP_NAME
};
constexpr const char* kDTypeNames[] = {
#define TG_UOPS_DTYPE_NAME(name, bytes) #name,
    TG_UOPS_DTYPES(TG_UOPS_DTYPE_NAME)
#undef TG_UOPS_DTYPE_NAME
};
constexpr size_t kDTypeSizes[] = {
#define TG_UOPS_DTYPE_SIZE(name, bytes) bytes,
    TG_UOPS_DTYPES(TG_UOPS_DTYPE_SIZE)
#undef TG_UOPS_DTYPE_SIZE
};

// Names sorted once, for a binary search per line.
template <typename E, size_t N>
struct NameTable {
  explicit NameTable(const char* const (&names)[N]) {
    for (size_t i = 0; i < N; ++i) entries[i] = {names[i], static_cast<E>(i)};
    std::sort(entries.begin(), entries.end());
  }
  bool Find(std::string_view name, E* out) const {
    auto it = std::lower_bound(entries.begin(), entries.end(), std::pair<std::string_view, E>{name, E{}},
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    if (it == entries.end() || it->first != name) return false;
    *out = it->second;
    return true;
  }
  std::array<std::pair<std::string_view, E>, N> entries;
};

const NameTable<Op, kNumOps>& Ops() {
  static const NameTable<Op, kNumOps> table(kOpNames);
  return table;
}
const NameTable<DType, kNumDTypes>& DTypes() {
  static const NameTable<DType, kNumDTypes> table(kDTypeNames);
  return table;
}

// Sources each op takes (tg_uops.h's table).
int SourceCount(Op op) {
  switch (op) {
    case Op::kDEFINE_GLOBAL: case Op::kDEFINE_VAR: case Op::kSPECIAL: case Op::kCONST: return 0;
    case Op::kASSIGN: case Op::kSTORE: return 2;
    case Op::kINDEX: case Op::kWHERE: case Op::kMULACC: return 3;
    case Op::kADD: case Op::kMUL: case Op::kIDIV: case Op::kMOD: case Op::kFDIV: case Op::kMAX:
    case Op::kCMPLT: case Op::kCMPNE: case Op::kCMPEQ: case Op::kXOR: case Op::kOR: case Op::kAND:
    case Op::kSHL: case Op::kSHR: return 2;
    default: return 1;
  }
}

uint16_t F32ToBf16(float f) {  // as the c dialect's tg_f32_to_bf16
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// A C99 float literal as the host writes it: %a hex, a decimal, inf or nan, with an optional sign.
bool ParseFloat(std::string_view s, double* out) {
  bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  double v;
  if (s == "inf" || s == "infinity") v = std::numeric_limits<double>::infinity();
  else if (s.rfind("nan", 0) == 0) v = std::numeric_limits<double>::quiet_NaN();
  else {
    auto format = std::chars_format::general;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2), format = std::chars_format::hex;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, format);
    if (ec != std::errc() || end != s.data() + s.size()) return false;
  }
  *out = neg ? -v : v;
  return true;
}

class Parser {
 public:
  explicit Parser(Program* out) : out_(out) {}

  tg_error* Line(size_t number, size_t text_line, std::string_view line);  // instruction |number|
  tg_error* Finish();

 private:
  tg_error* Fail(const std::string& what) const {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: tg-uops operation " + std::to_string(number_) +
                                                    " (text line " + std::to_string(text_line_) + "): " + what);
  }
  const Instr& Src(int i) const { return out_->code[instr_.src[i]]; }
  tg_error* ParseArg(std::string_view arg);
  tg_error* Check();
  tg_error* CheckAlu();

  Program* out_;
  size_t number_ = 0, text_line_ = 0;
  Instr instr_{};
  std::vector<uint32_t> open_ranges_;
};

tg_error* Parser::Line(size_t number, size_t text_line, std::string_view line) {
  number_ = number;
  text_line_ = text_line;
  std::string_view tok[8];
  size_t n = 0;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') { ++i; continue; }
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (n == 8) return Fail("too many fields (an op takes at most 3 sources)");
    tok[n++] = line.substr(i, j - i);
    i = j;
  }
  if (n < 3) return Fail("expected '<OP> <dtype> <arg> <source>...', got '" + std::string(line) + "'");
  instr_ = Instr{};
  if (!Ops().Find(tok[0], &instr_.op)) return Fail("unknown op '" + std::string(tok[0]) + "' (tg_uops.h lists the ops)");
  if (!DTypes().Find(tok[1], &instr_.dtype)) {
    return Fail("unknown dtype '" + std::string(tok[1]) +
                "'; allowed: void bool i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 (no vectors)");
  }
  int want = SourceCount(instr_.op);
  if (static_cast<int>(n) - 3 != want) {
    return Fail(std::string(OpName(instr_.op)) + " takes " + std::to_string(want) + " source(s), got " +
                std::to_string(n - 3));
  }
  for (int i = 0; i < want; ++i) {
    uint64_t s;
    std::string_view t = tok[3 + i];
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), s);
    if (ec != std::errc() || end != t.data() + t.size()) return Fail("source '" + std::string(t) + "' is not a line number");
    if (s >= number) return Fail("source " + std::to_string(s) + " is not an earlier operation (sources name lines 0.." +
                                 std::to_string(number) + " - 1)");
    instr_.src[i] = static_cast<uint32_t>(s);
  }
  instr_.num_src = static_cast<uint8_t>(want);
  if (tg_error* e = ParseArg(tok[2])) return e;
  if (tg_error* e = Check()) return e;
  out_->code.push_back(instr_);
  return nullptr;
}

tg_error* Parser::ParseArg(std::string_view arg) {
  const Op op = instr_.op;
  const bool has_arg = op == Op::kDEFINE_GLOBAL || op == Op::kDEFINE_VAR || op == Op::kSPECIAL || op == Op::kCONST;
  if (!has_arg) return arg == "-" ? nullptr : Fail(std::string(OpName(op)) + " takes no argument ('-'), got '" + std::string(arg) + "'");
  if (op == Op::kSPECIAL) {
    if (arg.size() != 5 || arg.substr(0, 4) != "gidx" || arg[4] < '0' || arg[4] > '2')
      return Fail("SPECIAL's argument must be gidx0, gidx1 or gidx2, got '" + std::string(arg) + "'");
    instr_.arg = arg[4] - '0';
    return nullptr;
  }
  if (op == Op::kCONST && IsFloat(instr_.dtype)) {
    double v;
    if (!ParseFloat(arg, &v)) return Fail("'" + std::string(arg) + "' is not a float (C99 %a hex, decimal, inf or nan)");
    float f = static_cast<float>(v);
    uint64_t bits = 0;
    switch (instr_.dtype) {
      case DType::kf16: bits = DoubleToHalf(v); break;
      case DType::kbf16: bits = F32ToBf16(f); break;
      case DType::kf32: memcpy(&bits, &f, 4); break;
      default: memcpy(&bits, &v, 8); break;
    }
    instr_.arg = static_cast<int64_t>(bits);
    return nullptr;
  }
  const char* first = arg.data();
  int64_t v = 0;
  std::from_chars_result r;
  if (op == Op::kCONST && instr_.dtype == DType::ku64 && !arg.empty() && arg[0] != '-') {
    uint64_t u;
    r = std::from_chars(first, arg.data() + arg.size(), u);
    v = static_cast<int64_t>(u);
  } else {
    r = std::from_chars(first, arg.data() + arg.size(), v);
  }
  if (r.ec != std::errc() || r.ptr != arg.data() + arg.size())
    return Fail("argument '" + std::string(arg) + "' is not a decimal integer");
  if (op != Op::kCONST) {
    if (v < 0 || v > 0xffff) return Fail("parameter slot " + std::to_string(v) + " is out of range 0..65535");
    instr_.arg = v;
    return nullptr;
  }
  const size_t bytes = DTypeBytes(instr_.dtype);
  if (instr_.dtype == DType::kbool && v != 0 && v != 1) return Fail("a bool CONST is 0 or 1, got " + std::string(arg));
  if (bytes < 8) {
    const int64_t lo = -(int64_t{1} << (8 * bytes - 1)), hi = (int64_t{1} << (8 * bytes)) - 1;
    if (v < lo || v > hi) return Fail("CONST " + std::string(arg) + " does not fit " + DTypeName(instr_.dtype));
  }
  instr_.arg = v;
  return nullptr;
}

// The instruction's sources and dtype make sense for its op.
tg_error* Parser::Check() {
  const DType t = instr_.dtype;
  const char* name = OpName(instr_.op);  // messages are built only for a refusal
  auto need = [&](bool ok, const char* what) { return ok ? nullptr : Fail(std::string(name) + " " + what); };
  auto is_value = [](const Instr& s) {
    return s.dtype != DType::kvoid && s.op != Op::kDEFINE_GLOBAL && s.op != Op::kINDEX;
  };
  for (int i = 0; i < instr_.num_src; ++i) {
    const Instr& s = Src(i);
    if (s.op == Op::kEND || s.op == Op::kSTORE) return Fail(std::string(name) + ": source " + std::to_string(instr_.src[i]) + " is a " + OpName(s.op) + ", which has no value");
  }
  switch (instr_.op) {
    case Op::kDEFINE_GLOBAL: return need(t != DType::kvoid, "needs the buffer's element dtype, not void");
    case Op::kDEFINE_VAR: return need(t == DType::ki32, "is i32");
    case Op::kSPECIAL: return need(t == DType::ki32 || t == DType::ki64, "is i32 or i64");
    case Op::kCONST: return need(t != DType::kvoid, "needs a dtype other than void");
    case Op::kRANGE:
      if ((t != DType::ki32 && t != DType::ki64) || Src(0).dtype != t || !is_value(Src(0)))
        return Fail("RANGE is i32 or i64 and its bound a value of the same dtype");
      open_ranges_.push_back(static_cast<uint32_t>(number_));
      return nullptr;
    case Op::kEND:
      if (t != DType::kvoid) return Fail("END is void");
      if (open_ranges_.empty() || open_ranges_.back() != instr_.src[0]) {
        return Fail("END " + std::to_string(instr_.src[0]) + " does not close the innermost open RANGE (" +
                    (open_ranges_.empty() ? std::string("none is open") : std::to_string(open_ranges_.back())) + ")");
      }
      open_ranges_.pop_back();
      return nullptr;
    case Op::kDEFINE_ACC: return need(t != DType::kvoid && is_value(Src(0)) && Src(0).dtype == t, "needs an initial value of its own dtype");
    case Op::kASSIGN:
      return need(Src(0).op == Op::kDEFINE_ACC && Src(0).dtype == t && is_value(Src(1)) && Src(1).dtype == t,
                  "needs a DEFINE_ACC and a value, both of its dtype");
    case Op::kREDUCE: return need(Src(0).op == Op::kDEFINE_ACC && Src(0).dtype == t, "needs a DEFINE_ACC of its dtype");
    case Op::kINDEX:
      if (Src(0).op != Op::kDEFINE_GLOBAL || Src(0).dtype != t) return Fail("INDEX needs a DEFINE_GLOBAL of its dtype first");
      if (!is_value(Src(1)) || (Src(1).dtype != DType::ki32 && Src(1).dtype != DType::ki64)) return Fail("INDEX's index is an i32 or i64 value");
      return need(Src(2).dtype == DType::kbool && is_value(Src(2)), "'s gate is a bool value");
    case Op::kLOAD: return need(Src(0).op == Op::kINDEX && Src(0).dtype == t, "needs an INDEX of its dtype");
    case Op::kSTORE:
      return need(t == DType::kvoid && Src(0).op == Op::kINDEX && is_value(Src(1)) && Src(1).dtype == Src(0).dtype,
                  "is void and needs an INDEX and a value of the INDEX's dtype");
    default:
      for (int i = 0; i < instr_.num_src; ++i)
        if (!is_value(Src(i))) return Fail(std::string(name) + ": source " + std::to_string(instr_.src[i]) + " is not a value");
      return CheckAlu();
  }
}

tg_error* Parser::CheckAlu() {
  const DType t = instr_.dtype, a = Src(0).dtype;
  const char* name = OpName(instr_.op);
  const bool float_math = t == DType::kf16 || t == DType::kf32 || t == DType::kf64;
  const bool numeric = t != DType::kvoid && t != DType::kbf16;
  auto same = [&](int from) {
    for (int i = from; i < instr_.num_src; ++i)
      if (Src(i).dtype != t) return false;
    return true;
  };
  auto need = [&](bool ok, const char* allowed) {
    return ok ? nullptr : Fail(std::string(name) + " of " + DTypeName(t) + " (sources " + DTypeName(a) + "...) is not allowed: " + allowed);
  };
  switch (instr_.op) {
    case Op::kCAST: return need(t != DType::kvoid, "a CAST converts between non-void dtypes");
    case Op::kBITCAST: return need(t != DType::kvoid && DTypeBytes(t) == DTypeBytes(a), "a BITCAST keeps the size");
    case Op::kEXP2: case Op::kLOG2: case Op::kSIN: case Op::kSQRT: case Op::kRECIPROCAL: case Op::kTRUNC:
    case Op::kFDIV:
      return need(float_math && same(0), "f16, f32 or f64 with sources of that dtype (bf16 is storage only)");
    case Op::kNEG: case Op::kADD: case Op::kMUL: case Op::kMAX:
      return need(numeric && same(0), "any dtype but bf16 (storage only) and void, sources of the same dtype");
    case Op::kMULACC: return need(numeric && t != DType::kbool && same(0), "numbers, sources of the same dtype");
    case Op::kIDIV: case Op::kMOD: return need(IsInt(t) && same(0), "integers, sources of the same dtype");
    case Op::kXOR: case Op::kOR: case Op::kAND:
      return need((IsInt(t) || t == DType::kbool) && same(0), "integers or bool, sources of the same dtype");
    case Op::kSHL: case Op::kSHR:
      return need(IsInt(t) && a == t && IsInt(Src(1).dtype), "integers, an integer shift count");
    case Op::kCMPLT: case Op::kCMPNE: case Op::kCMPEQ:
      return need(t == DType::kbool && a != DType::kbf16 && Src(1).dtype == a, "bool of two sources of one dtype (not bf16)");
    case Op::kWHERE:
      return need(t != DType::kvoid && a == DType::kbool && same(1), "bool condition, both choices of its dtype");
    default: return Fail(std::string(name) + " is not an ALU op");
  }
}

tg_error* Parser::Finish() {
  if (open_ranges_.empty()) return nullptr;
  return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: tg-uops operation " +
                                                 std::to_string(open_ranges_.back()) +
                                                 ": this RANGE is never closed (every RANGE needs an END naming it)");
}

}  // namespace

const char* OpName(Op op) { return kOpNames[static_cast<int>(op)]; }
const char* DTypeName(DType dtype) { return kDTypeNames[static_cast<int>(dtype)]; }
size_t DTypeBytes(DType dtype) { return kDTypeSizes[static_cast<int>(dtype)]; }
bool IsFloat(DType d) { return d == DType::kf16 || d == DType::kbf16 || d == DType::kf32 || d == DType::kf64; }
bool IsInt(DType d) { return d >= DType::ki8 && d <= DType::ku64; }

tg_error* ParseProgram(std::string_view text, Program* out) {
  auto fail = [](const std::string& what) {
    return MakeError(TG_CODE_INVALID_ARGUMENT, "program_compile: tg-uops text line 1 (the header): " + what);
  };
  size_t eol = text.find('\n');
  std::string_view header = text.substr(0, eol);
  const std::string want = "tg-uops " + std::to_string(TG_UOPS_VERSION) + " ";
  if (header.substr(0, want.size()) != want || header.size() == want.size()) {
    return fail("expected '" + want + "<entry>', got '" + std::string(header.substr(0, 80)) +
                "' (this plugin reads tg-uops version " + std::to_string(TG_UOPS_VERSION) + ")");
  }
  out->entry = std::string(header.substr(want.size()));
  while (!out->entry.empty() && (out->entry.back() == '\r' || out->entry.back() == ' ')) out->entry.pop_back();
  out->code.clear();
  out->code.reserve(std::count(text.begin(), text.end(), '\n') + 1);
  Parser parser(out);
  size_t number = 0, text_line = 1;
  for (size_t pos = eol == std::string_view::npos ? text.size() : eol + 1; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++text_line;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // a trailing newline
    if (tg_error* e = parser.Line(number++, text_line, line)) return e;
  }
  return parser.Finish();
}

}  // namespace tg_cpu::uops
