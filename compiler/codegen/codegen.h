// Codegen: one kernel AST (from compiler/schedule) to source text plus its launch grid.
// Runs the codegen steps of DESIGN §2 in order: simplify, launch dims, linearize, render.
#ifndef TG_COMPILER_CODEGEN_CODEGEN_H_
#define TG_COMPILER_CODEGEN_CODEGEN_H_

#include <string>

#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

struct GeneratedKernel {
  std::string name;  // tinygrad style: "E_4_4" (elementwise), "r_128_64_256" (with a reduce)
  runtime::KernelSource source;
  runtime::LaunchDims dims;
};

// Throws tg::Error when the device accepts no dialect this compiler renders.
GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device);

// The kernel's name from its loops: extents in loop order, "r" prefix when it reduces.
std::string KernelName(const UOpRef& ast);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_CODEGEN_H_
