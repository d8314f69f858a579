#include "tests/fuzz/program.h"

#include <cstdio>
#include <sstream>

namespace tg::fuzz {
namespace {

const char* UnaryName(int op) {
  static const char* kNames[] = {"neg", "exp", "log", "sqrt", "relu", "reciprocal", "sin", "square"};
  return kNames[op];
}
const char* BinaryName(int op) {
  static const char* kNames[] = {"add", "sub", "mul", "maximum", "div"};
  return kNames[op];
}
const char* CompareName(int op) {
  static const char* kNames[] = {"lt", "gt", "eq", "ne"};
  return kNames[op];
}

std::string Ints(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

std::string Pairs(const std::vector<std::pair<int64_t, int64_t>>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", {" : "{") + std::to_string(v[i].first) + ", " + std::to_string(v[i].second) + "}";
  return s + "}";
}

std::string Floats(const std::vector<float>& v) {
  std::string s = "{";
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.9gf", i ? ", " : "", v[i]);
    s += buf;
  }
  return s + "}";
}

std::string T(int i) { return "t" + std::to_string(i); }

// The right-hand side of one step in tg::Tensor spelling, so a failure pastes into a regression test.
std::string StepExpr(const Step& s) {
  const auto& a = s.src;
  char num[40];
  std::snprintf(num, sizeof num, "%.9g", s.constant);
  switch (s.kind) {
    case StepKind::kInput: return "Tensor::from_vector<float>(" + Floats(s.data) + ", Shape" + Ints(s.dims) + ", dev)";
    case StepKind::kUnary: return T(a[0]) + "." + UnaryName(s.op) + "()";
    case StepKind::kBinary: return T(a[0]) + "." + BinaryName(s.op) + "(" + T(a[1]) + ")";
    case StepKind::kConstBinary: return T(a[0]) + "." + BinaryName(s.op) + "(" + num + ")";
    case StepKind::kWhere:
      return T(a[0]) + "." + CompareName(s.op) + "(" + T(a[1]) + ").where(" + T(a[2]) + ", " + T(a[3]) + ")";
    case StepKind::kCompare:
      return T(a[0]) + "." + CompareName(s.op) + "(" + T(a[1]) + ").cast(dtypes::float32)";
    case StepKind::kReshape: return T(a[0]) + ".reshape(" + Ints(s.ints) + ")";
    case StepKind::kPermute: return T(a[0]) + ".permute(" + Ints(s.ints) + ")";
    case StepKind::kExpand: return T(a[0]) + ".expand(" + Ints(s.ints) + ")";
    case StepKind::kPad: return T(a[0]) + ".pad(" + Pairs(s.pairs) + ")";
    case StepKind::kShrink: return T(a[0]) + ".shrink(" + Pairs(s.pairs) + ")";
    case StepKind::kFlip: return T(a[0]) + ".flip(" + Ints(s.ints) + ")";
    case StepKind::kReduce:
      return T(a[0]) + (s.op == 0 ? ".sum(" : ".max(") + Ints(s.ints) + ", " + (s.keepdim ? "true" : "false") + ")";
    case StepKind::kMatmul: return T(a[0]) + ".matmul(" + T(a[1]) + ")";
    case StepKind::kContiguous: return T(a[0]) + ".contiguous()";
  }
  return "?";
}

}  // namespace

int64_t Numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string DimsString(const Dims& d) {
  std::string s = "(";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}

std::string ProgramString(const Program& p) {
  std::ostringstream out;
  out << "// program seed " << p.seed << ", " << p.steps.size() << " steps\n";
  for (size_t i = 0; i < p.steps.size(); ++i)
    out << "Tensor " << T(static_cast<int>(i)) << " = " << StepExpr(p.steps[i]) << ";  // "
        << DimsString(p.steps[i].dims) << "\n";
  out << "// outputs:";
  for (int o : p.outputs) out << " " << T(o);
  out << "\n";
  return out.str();
}

}  // namespace tg::fuzz
