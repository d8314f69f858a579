// Codegen: one kernel AST (from compiler/schedule) to source text plus its launch grid.
// Runs the codegen steps of the walk in docs/architecture.md in order: simplify, launch dims, linearize, render.
#ifndef TG_COMPILER_CODEGEN_CODEGEN_H_
#define TG_COMPILER_CODEGEN_CODEGEN_H_

#include <string>
#include <vector>

#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/target.h"
#include "ir/uop.h"
#include "runtime/device.h"

namespace tg::compiler {

struct GeneratedKernel {
  std::string name;  // tinygrad style: "E_4_4" (elementwise), "r_128_64_256" (with a reduce)
  runtime::KernelSource source;
  runtime::LaunchDims dims;
};

// Throws tg::Error when the device accepts no dialect this compiler renders.
GeneratedKernel GenerateKernel(const UOpRef& ast, const Target& target);
// The same with |opts| applied in order instead of the heuristic's (BEAM's winners); an illegal
// opt throws tg::Error. NOOPT does not apply: the caller chose these.
GeneratedKernel GenerateKernel(const UOpRef& ast, const Target& target, const std::vector<Opt>& opts);

// What opts are chosen against: |ast| simplified with its loops in their starting roles.
// Opts index the axes of StartKernel().
Kernel StartKernel(const UOpRef& ast, const Target& target);

// The same for a device described by hand (tests, tools); realize uses the device's TargetOf().
GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device);
GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device, const std::vector<Opt>& opts);
Kernel StartKernel(const UOpRef& ast, const runtime::DeviceInfo& device);

// The kernel's name from its loops: extents in loop order, "r" prefix when it reduces.
std::string KernelName(const UOpRef& ast);

}  // namespace tg::compiler

#endif  // TG_COMPILER_CODEGEN_CODEGEN_H_
