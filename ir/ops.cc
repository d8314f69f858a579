#include "ir/ops.h"

#include <array>

namespace tg {
namespace {

// Indexed by the enum value; the static_assert below keeps it in step with the enum.
constexpr std::array<std::string_view, kNumOps> kOpNames = {
    "BUFFER", "DEFINE_GLOBAL", "DEFINE_VAR", "DEFINE_ACC", "SPECIAL", "DEFINE_LOCAL",
    "RESHAPE", "PERMUTE", "EXPAND", "PAD", "SHRINK", "FLIP",
    "CAST", "BITCAST", "EXP2", "LOG2", "SIN", "SQRT", "RECIPROCAL", "NEG", "TRUNC",
    "ADD", "MUL", "IDIV", "MOD", "FDIV", "MAX", "CMPLT", "CMPNE", "CMPEQ", "XOR", "OR", "AND", "SHL", "SHR",
    "THREEFRY",
    "WHERE", "MULACC",
    "REDUCE", "CONST", "IOTA",
    "RANGE", "END", "IF", "ENDIF", "BARRIER",
    "INDEX", "LOAD", "STORE", "ASSIGN",
    "VECTORIZE", "GEP", "WMMA",
    "CONTIGUOUS", "DETACH", "COPY", "SINK", "KERNEL", "NOOP",
    "MULTI", "ALLREDUCE",
    "BIND", "VAR_SHRINK",
};
static_assert(kOpNames.back() == "VAR_SHRINK");

bool Between(Ops op, Ops first, Ops last) { return op >= first && op <= last; }

}  // namespace

std::string_view OpName(Ops op) { return kOpNames[static_cast<int>(op)]; }
bool IsUnary(Ops op) { return Between(op, Ops::kCast, Ops::kTrunc); }
bool IsBinary(Ops op) { return Between(op, Ops::kAdd, Ops::kThreefry); }
bool IsTernary(Ops op) { return Between(op, Ops::kWhere, Ops::kMulAcc); }
bool IsAlu(Ops op) { return Between(op, Ops::kCast, Ops::kMulAcc); }
bool IsMovement(Ops op) { return Between(op, Ops::kReshape, Ops::kFlip); }

bool IsCommutative(Ops op) {
  switch (op) {
    case Ops::kAdd: case Ops::kMul: case Ops::kMax: case Ops::kCmpNe: case Ops::kCmpEq:
    case Ops::kXor: case Ops::kOr: case Ops::kAnd:
      return true;
    default:
      return false;
  }
}

bool IsComparison(Ops op) { return op == Ops::kCmpLt || op == Ops::kCmpNe || op == Ops::kCmpEq; }

std::vector<Ops> OpsWhere(bool (*in_group)(Ops)) {
  std::vector<Ops> out;
  for (int i = 0; i < kNumOps; ++i)
    if (in_group(static_cast<Ops>(i))) out.push_back(static_cast<Ops>(i));
  return out;
}

}  // namespace tg
