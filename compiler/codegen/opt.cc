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
  }
  return "?";
}

std::string Opt::str() const {
  const char* name = op == OptOp::kUpcast ? "UPCAST" : op == OptOp::kUnroll ? "UNROLL"
                     : op == OptOp::kLocal ? "LOCAL" : "THREAD";
  return std::string("Opt(") + name + ", " + std::to_string(axis) + ", " + std::to_string(amount) + ")";
}

}  // namespace tg::compiler
