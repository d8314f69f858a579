#include "tests/compiler/kernel_run.h"

#include <map>
#include <memory>
#include <random>

#include "compiler/codegen/codegen.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"

namespace tg::compiler::testing {

KernelRun RunOnFreshBuffers(const UOpRef& ast, const std::vector<Opt>& opts, runtime::Device& device,
                            float output_fill) {
  std::map<int64_t, int64_t> elements;  // parameter -> largest index + 1
  for (const UOpRef& u : ast->toposort())
    if (u->op() == Ops::kIndex && u->src(0)->op() == Ops::kDefineGlobal) {
      int64_t& e = elements[u->src(0)->arg_as<int64_t>()];
      e = std::max(e, u->src(1)->vmax() + 1);
    }
  GeneratedKernel k = GenerateKernel(ast, device.info(), opts);
  KernelRun run{{}, k.source.source};
  auto program = device.GetProgram(k.source);
  EXPECT_TRUE(program.ok()) << program.status() << "\n" << k.source.source;
  if (!program.ok()) return run;
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::KernelArg> args;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto [param, n] : elements) {
    std::vector<float> data(n);
    for (float& x : data) x = param == 0 ? output_fill : d(rng);
    buffers.push_back(runtime::Buffer::Create(device, n * sizeof(float)));
    EXPECT_TRUE(buffers.back()->CopyIn(data.data(), n * sizeof(float)).ok());
    args.push_back(runtime::KernelArg::Buf(buffers.back().get()));
  }
  EXPECT_TRUE(device.Launch(**program, k.dims, args, nullptr).ok());
  run.out.resize(elements.at(0));
  EXPECT_TRUE(buffers[0]->CopyOut(run.out.data(), run.out.size() * sizeof(float)).ok());
  return run;
}

}  // namespace tg::compiler::testing
