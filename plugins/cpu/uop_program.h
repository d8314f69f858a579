// uop_program.h: a "tg-uops" kernel (plugins/abi/tg_uops.h) parsed and checked: the instructions in
// line order, each with its op, scalar dtype, argument and sources. The parser refuses anything the
// interpreter could not run, naming the line, so the interpreter itself never meets a malformed program.
#ifndef TG_PLUGINS_CPU_UOP_PROGRAM_H_
#define TG_PLUGINS_CPU_UOP_PROGRAM_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/abi/tg_uops.h"
#include "plugins/cpu/cpu_error.h"

namespace tg_cpu::uops {

enum class Op : uint8_t {
#define TG_UOPS_OP_ENUM(name) k##name,
  TG_UOPS_OPS(TG_UOPS_OP_ENUM)
#undef TG_UOPS_OP_ENUM
};

enum class DType : uint8_t {
#define TG_UOPS_DTYPE_ENUM(name, bytes) k##name,
  TG_UOPS_DTYPES(TG_UOPS_DTYPE_ENUM)
#undef TG_UOPS_DTYPE_ENUM
};

constexpr int kNumOps = 0
#define TG_UOPS_OP_COUNT(name) +1
    TG_UOPS_OPS(TG_UOPS_OP_COUNT)
#undef TG_UOPS_OP_COUNT
    ;
constexpr int kNumDTypes = static_cast<int>(DType::kf64) + 1;

const char* OpName(Op op);
const char* DTypeName(DType dtype);
size_t DTypeBytes(DType dtype);
bool IsFloat(DType dtype);  // f16, bf16, f32, f64
bool IsInt(DType dtype);    // the signed and unsigned integers (not bool)

struct Instr {
  Op op;
  DType dtype;
  uint8_t num_src = 0;
  uint32_t src[3] = {0, 0, 0};
  // DEFINE_GLOBAL / DEFINE_VAR: the parameter's slot; SPECIAL: the dimension; CONST: the value's bits
  // in its dtype (a float16 CONST holds the half's 16 bits, a bool 0 or 1).
  int64_t arg = 0;
};

struct Program {
  std::string entry;
  std::vector<Instr> code;
};

// Parses |text| into |out|; INVALID_ARGUMENT naming the line (1 is the header, 2 is instruction 0)
// and what is allowed there.
tg_error* ParseProgram(std::string_view text, Program* out);

}  // namespace tg_cpu::uops

#endif  // TG_PLUGINS_CPU_UOP_PROGRAM_H_
