// GROUP and GROUPTOP on a GPU dialect: a reduce shared by a group's work items, whose partials meet in
// local memory after a barrier. Each case runs the kernel with the opts on the suite's device and
// compares it with the same kernel without opts; the source must hold the local array and the barrier.
// Illegal cases are tg::Errors that say why. Runs where a device renders local memory (OpenCL).
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"
#include "tests/compiler/kernel_run.h"

namespace tg::compiler {
namespace {

runtime::Device& SuiteDevice() {
  return *runtime::DeviceRegistry::Global().GetDevice(Tensor::rand({1}).device()).value();
}

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

using Run = testing::KernelRun;

// The kernel on the suite's device; the output starts at -7, which every output must overwrite.
Run RunWith(const UOpRef& ast, const std::vector<Opt>& opts) {
  return testing::RunOnFreshBuffers(ast, opts, SuiteDevice(), -7.0f);
}

void ExpectSameAsNoOptThroughLocalMemory(const UOpRef& ast, const std::vector<Opt>& opts) {
  Run want = RunWith(ast, {}), got = RunWith(ast, opts);
  ASSERT_EQ(got.out.size(), want.out.size());
  for (size_t i = 0; i < got.out.size(); ++i)
    ASSERT_NEAR(got.out[i], want.out[i], 1e-4f * std::max(1.0f, std::abs(want.out[i]))) << i << "\n" << got.source;
  EXPECT_THAT(got.source, ::testing::HasSubstr("temp0["));
  EXPECT_THAT(got.source, ::testing::AnyOf(::testing::HasSubstr("barrier(CLK_LOCAL_MEM_FENCE)"),
                                           ::testing::HasSubstr("__syncthreads()")));
}

void ExpectIllegal(Kernel k, const Opt& opt, const std::string& why) {
  try {
    k.Apply(opt);
    FAIL() << opt.str() << " should be illegal";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(why)) << opt.str();
  }
}

class GroupReduce : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TargetOf(SuiteDevice()).shared_memory)
      GTEST_SKIP() << "device " << SuiteDevice().info().name << " renders no local memory";
  }
  const Target& target() { return TargetOf(SuiteDevice()); }
};

TEST_F(GroupReduce, RowSumsShareEachRowAcrossAGroup) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({8, 1024}).sum({1}));
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kGroup, 1, 16}});
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kGroupTop, 1, 16}});
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kGroupTop, 1, 256}});
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kGroup, 1, 4}, {OptOp::kUnroll, 1, 4}});
}

TEST_F(GroupReduce, AWholeAxisOfWorkItemsReducesWithoutALoopOfItsOwn) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({4, 64}).max({1}));
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kGroup, 1, 64}});
  Kernel k = StartKernel(ast, target());
  k.Apply({OptOp::kGroup, 1, 64});
  EXPECT_EQ(k.AxesString(), "[GLOBAL:4, GROUP_REDUCE:64]");
}

TEST_F(GroupReduce, AScalarReduceIsOneGroup) {
  ExpectSameAsNoOptThroughLocalMemory(OnlyKernelAst(Tensor::rand({4096}).sum()), {{OptOp::kGroupTop, 0, 256}});
  ExpectSameAsNoOptThroughLocalMemory(OnlyKernelAst((Tensor::rand({2048}) * 3).max()), {{OptOp::kGroup, 0, 128}});
}

// Each work item's slot is its place among the LOCAL and group ids; UPCAST copies have arrays of their own.
TEST_F(GroupReduce, LocalOutputsAndUpcastCopiesKeepTheirOwnPartials) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({64, 256}).sum({1}));
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kLocal, 0, 8}, {OptOp::kGroup, 1, 16}});
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kUpcast, 0, 4}, {OptOp::kGroupTop, 1, 32}});
  ExpectSameAsNoOptThroughLocalMemory(ast, {{OptOp::kLocal, 0, 4}, {OptOp::kUpcast, 0, 2}, {OptOp::kGroup, 1, 8}});
  UOpRef matmul = OnlyKernelAst(Tensor::rand({4, 128}).matmul(Tensor::rand({128, 8})));
  ExpectSameAsNoOptThroughLocalMemory(matmul, {{OptOp::kLocal, 1, 8}, {OptOp::kGroupTop, 1, 16}});
}

// The reduced value feeds more math, and a kernel of two reduces side by side groups either one.
TEST_F(GroupReduce, AGroupedReduceFeedsTheRestOfItsKernel) {
  Tensor x = Tensor::rand({4, 128}).realize();
  ExpectSameAsNoOptThroughLocalMemory(OnlyKernelAst(x.sum({1}).exp() * 2 + 1), {{OptOp::kGroupTop, 1, 16}});
  UOpRef both = OnlyKernelAst(x.sum({1}) * x.max({1}));
  Kernel k = StartKernel(both, target());
  std::vector<int> reduces;
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (k.axes()[i].type == AxisType::kReduce) reduces.push_back(static_cast<int>(i));
  ASSERT_EQ(reduces.size(), 2u) << k.AxesString();
  for (int axis : reduces) ExpectSameAsNoOptThroughLocalMemory(both, {{OptOp::kGroup, axis, 16}});
}

TEST_F(GroupReduce, IllegalCasesSayWhy) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({8, 64}).sum({1}));
  Kernel k = StartKernel(ast, target());
  ExpectIllegal(k, {OptOp::kGroup, 1, 3}, "must divide the extent 64");
  ExpectIllegal(k, {OptOp::kGroup, 0, 4}, "splits a reduce axis");
  Kernel grouped = k;
  grouped.Apply({OptOp::kGroup, 1, 4});
  ExpectIllegal(grouped, {OptOp::kGroup, 1, 4}, "one group axis");
  int64_t too_many = int64_t{2} * target().max_group_threads;
  Kernel wide = StartKernel(OnlyKernelAst(Tensor::rand({too_many}).sum()), target());
  ExpectIllegal(wide, {OptOp::kGroup, 0, too_many}, "work items; the device allows");
}

// The GPU dialects whose renderers spell no local arrays (wgsl) refuse GROUP, and say so; the CPU
// dialects refuse it for running a group's items one after another.
TEST(GroupReduceRefusal, RenderersWithoutLocalArraysSayWhy) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({8, 64}).sum({1}));
  auto device = [](const std::string& dialect) {
    runtime::DeviceInfo d;
    d.name = dialect + "(compile-only)";
    d.source_dialects = {dialect};
    d.arch = "sm_90";
    d.max_group_threads = 1024;
    d.local_mem_bytes = 48 << 10;
    return Target::For(d);
  };
  ExpectIllegal(StartKernel(ast, device("wgsl")), {OptOp::kGroup, 1, 16},
                "the wgsl renderer does not spell local arrays and barriers yet");
  ExpectIllegal(StartKernel(ast, device("c")), {OptOp::kGroupTop, 1, 16}, "run a group's items as loops of one thread");
  for (const char* dialect : {"cuda-c", "ptx"})  // legal there (ptx: .shared and bar.sync)
    ExpectIllegal(StartKernel(ast, device(dialect)), {OptOp::kGroup, 1, 3}, "must divide the extent 64");
}

// The heuristic shares a reduce into few outputs across a group; BEAM's limits count its work items.
// ... where a group's items run side by side; a CPU's OpenCL runs them one after another, and its
// heuristic leaves the reduce to one work item an output.
TEST_F(GroupReduce, TheHeuristicGroupsAReduceIntoFewOutputsWhereItemsRunInParallel) {
  Tensor flat = Tensor::rand({4096}).realize(), rows = Tensor::rand({16, 1024}).realize();
  runtime::DeviceInfo gpu = SuiteDevice().info();
  gpu.device_type = TG_DEVICE_TYPE_GPU;
  bool cpu = SuiteDevice().info().device_type == TG_DEVICE_TYPE_CPU;
  for (const Tensor& t : {flat.sum(), rows.max({1})}) {
    GeneratedKernel k = GenerateKernel(OnlyKernelAst(t), Target::For(gpu));
    EXPECT_THAT(k.source.source, ::testing::HasSubstr("temp0[")) << k.source.source;
    GeneratedKernel here = GenerateKernel(OnlyKernelAst(t), target());
    EXPECT_EQ(here.source.source.find("temp0[") == std::string::npos, cpu) << here.source.source;
    setenv("GROUP_SERIAL", "1", 1);  // groups anyway: how the grouped golden and fuzz variants run on PoCL
    GeneratedKernel asked = GenerateKernel(OnlyKernelAst(t), target());
    unsetenv("GROUP_SERIAL");
    EXPECT_THAT(asked.source.source, ::testing::HasSubstr("temp0[")) << asked.source.source;
  }
  // and the sums it computes so are the host's
  std::vector<float> host = flat.to_vector<float>();
  double want = 0;
  for (float v : host) want += v;
  EXPECT_NEAR(flat.sum().item<float>(), want, 1e-4 * host.size());
}

}  // namespace
}  // namespace tg::compiler
