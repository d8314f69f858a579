#include "compiler/codegen/codegen.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_join.h"
#include "compiler/codegen/gpudims.h"
#include "compiler/linearize.h"
#include "compiler/render/renderer.h"
#include "ir/env.h"
#include "ir/error.h"
#include "ir/symbolic.h"

namespace tg::compiler {
namespace {

const Renderer& PickRenderer(const runtime::DeviceInfo& device) {
  for (const std::string& dialect : device.source_dialects)
    if (const Renderer* r = RendererForDialect(dialect)) return *r;
  throw Error("device " + device.name + " accepts dialects [" +
              absl::StrJoin(device.source_dialects, ", ") +
              "], none of which this compiler renders (it renders: c)");
}

}  // namespace

std::string KernelName(const UOpRef& ast) {
  std::vector<UOpRef> loops;
  bool reduces = false;
  for (const UOpRef& u : ast->toposort()) {
    if (u->op() == Ops::kRange) loops.push_back(u);
    reduces = reduces || u->op() == Ops::kReduce;
  }
  std::sort(loops.begin(), loops.end(), [](const UOpRef& a, const UOpRef& b) {
    return a->arg_as<int64_t>() < b->arg_as<int64_t>();
  });
  std::string name = reduces ? "r" : "E";
  for (const UOpRef& loop : loops) name += "_" + std::to_string(loop->src(0)->const_int());
  return name;
}

GeneratedKernel GenerateKernel(const UOpRef& ast, const runtime::DeviceInfo& device) {
  const Renderer& renderer = PickRenderer(device);
  GeneratedKernel kernel;
  kernel.name = KernelName(ast);
  UOpRef sink = AddGpuDims(Simplify(ast), kernel.dims.num_groups);
  if (DebugLevel() >= 5) std::fprintf(stderr, "--- %s kernel AST ---\n%s\n", kernel.name.c_str(), sink->str().c_str());
  std::vector<UOpRef> ops = Linearize(sink);
  if (DebugLevel() >= 6) {
    std::fprintf(stderr, "--- %s linearized ---\n", kernel.name.c_str());
    for (size_t i = 0; i < ops.size(); ++i)
      std::fprintf(stderr, "%4zu %-12s %-8s %s\n", i, std::string(OpName(ops[i]->op())).c_str(),
                   ops[i]->dtype().name().c_str(), ArgString(ops[i]->arg()).c_str());
  }
  kernel.source = {std::string(renderer.dialect()), renderer.Render(kernel.name, ops), kernel.name};
  return kernel;
}

}  // namespace tg::compiler
