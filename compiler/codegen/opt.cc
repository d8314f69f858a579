#include "compiler/codegen/opt.h"

namespace tg::compiler {

std::string AxisTypeName(AxisType type) {
  switch (type) {
    case AxisType::kGlobal: return "GLOBAL";
    case AxisType::kLocal: return "LOCAL";
    case AxisType::kLoop: return "LOOP";
    case AxisType::kReduce: return "REDUCE";
    case AxisType::kUpcast: return "UPCAST";
    case AxisType::kUnroll: return "UNROLL";
    case AxisType::kBlock: return "BLOCK";
    case AxisType::kGroupReduce: return "GROUP_REDUCE";
    case AxisType::kTensorCore: return "TC";
  }
  return "?";
}

std::string OptOpName(OptOp op) {
  switch (op) {
    case OptOp::kUpcast: return "UPCAST";
    case OptOp::kUnroll: return "UNROLL";
    case OptOp::kLocal: return "LOCAL";
    case OptOp::kThread: return "THREAD";
    case OptOp::kGroup: return "GROUP";
    case OptOp::kGroupTop: return "GROUPTOP";
    case OptOp::kPadTo: return "PADTO";
    case OptOp::kSwap: return "SWAP";
    case OptOp::kBlock: return "BLOCK";
    case OptOp::kTc: return "TC";
  }
  return "?";
}

std::optional<OptOp> OptOpFromName(std::string_view name) {
  for (OptOp op : {OptOp::kUpcast, OptOp::kUnroll, OptOp::kLocal, OptOp::kThread, OptOp::kGroup, OptOp::kGroupTop,
                   OptOp::kPadTo, OptOp::kSwap, OptOp::kBlock, OptOp::kTc})
    if (OptOpName(op) == name) return op;
  return std::nullopt;
}

std::string Opt::str() const {
  return "Opt(" + OptOpName(op) + ", " + std::to_string(axis) + ", " + std::to_string(amount) + ")";
}

}  // namespace tg::compiler
