// GROUP, GROUPTOP, PADTO, SWAP (tinygrad's apply_opt checks) and BLOCK: each legal case computes what the
// kernel without opts computes, each illegal case is a tg::Error that says why; BEAM's action list
// holds them; the opt text of the disk cache round-trips them.
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "compiler/codegen/beam.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"
#include "tests/compiler/kernel_run.h"

namespace tg::compiler {
namespace {

runtime::Device& Cpu() { return *runtime::DeviceRegistry::Global().GetDevice("CPU").value(); }

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

std::vector<float> RunWith(const UOpRef& ast, const std::vector<Opt>& opts) {
  return testing::RunOnFreshBuffers(ast, opts, Cpu()).out;
}

void ExpectSameAsNoOpt(const UOpRef& ast, const std::vector<Opt>& opts) {
  std::vector<float> want = RunWith(ast, {}), got = RunWith(ast, opts);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f * std::max(1.0f, std::abs(want[i]))) << i;
}

void ExpectIllegal(Kernel k, const Opt& opt, const std::string& reason) {
  try {
    k.Apply(opt);
    ADD_FAILURE() << opt.str() << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

// A reduce nested in another (row sums of a matmul), both unrolled until no reduce loop is left: BEAM
// reaches this by itself on the matmul + relu + sum of tests/compiler/cache_probe.cc.
TEST(Unroll, NestedReducesUnrolledWhole) {
  Tensor x = Tensor::rand({24, 16}), w = Tensor::rand({16, 32}), bias = Tensor::rand({32});
  UOpRef ast = OnlyKernelAst((x.matmul(w) + bias).relu().sum({1}));
  ExpectSameAsNoOpt(ast, {{OptOp::kUnroll, 1, 16}, {OptOp::kUnroll, 2, 16}});
}

TEST(PadTo, OutputAxisMasksTheAddedIterations) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({30, 20}) * 2 + 1);
  Kernel k = StartKernel(ast, Cpu().info());
  k.Apply({OptOp::kPadTo, 0, 32});
  EXPECT_EQ(k.axes()[0].extent(), 32);
  ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 0, 32}});
  ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 1, 32}, {OptOp::kUpcast, 1, 8}});  // pad then vectorize 32 = 4 x 8
  // 20 columns in two vectors of 16: the second one's store is masked lane by lane (lanes 4-15 off)
  ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 1, 16}, {OptOp::kUpcast, 1, 16}});
}

TEST(PadTo, ReduceAxisSeesTheIdentity) {
  Tensor x = Tensor::rand({12, 30}) - 0.5;
  for (const Tensor& t : {x.sum({1}), x.max({1}), (x.exp()).sum({1})}) {
    UOpRef ast = OnlyKernelAst(t);
    ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 1, 32}});
    ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 1, 16}, {OptOp::kUnroll, 1, 8}});
  }
}

TEST(PadTo, IllegalCases) {
  Kernel k = StartKernel(OnlyKernelAst((Tensor::rand({5, 64}) + 1).sum({1})), Cpu().info());
  ExpectIllegal(k, {OptOp::kPadTo, 0, 32}, "more than quadruples");   // 5 -> 32
  ExpectIllegal(k, {OptOp::kPadTo, 1, 32}, "already a multiple");     // 64
  ExpectIllegal(k, {OptOp::kPadTo, 0, 1}, "at least 2");
  Kernel up = k;
  up.Apply({OptOp::kUnroll, 1, 4});
  ExpectIllegal(up, {OptOp::kPadTo, 2, 3}, "not an expanded");
}

TEST(Swap, ExchangesTheGlobalAxisWithALoop) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({6, 10, 12}).permute({2, 0, 1}) + 1);
  Kernel k = StartKernel(ast, Cpu().info());
  int64_t first = k.axes()[0].extent(), second = k.axes()[1].extent();
  k.Apply({OptOp::kSwap, 0, 1});
  EXPECT_EQ(k.axes()[0].type, AxisType::kGlobal);
  EXPECT_EQ(k.axes()[0].extent(), second);
  EXPECT_EQ(k.axes()[1].extent(), first);
  ExpectSameAsNoOpt(ast, {{OptOp::kSwap, 0, 1}});
  ExpectSameAsNoOpt(ast, {{OptOp::kSwap, 0, 2}, {OptOp::kUpcast, 2, 4}, {OptOp::kThread, 0, 2}});
}

TEST(Swap, IllegalCases) {
  Kernel k = StartKernel(OnlyKernelAst(Tensor::rand({8, 16}).sum({1})), Cpu().info());
  ExpectIllegal(k, {OptOp::kSwap, 0, 0}, "two different output axes");
  ExpectIllegal(k, {OptOp::kSwap, 0, 1}, "two different output axes");  // axis 1 reduces
  ExpectIllegal(k, {OptOp::kSwap, 0, 5}, "two different output axes");
}

TEST(Group, IllegalWithoutLocalMemoryAndSaysWhy) {
  Kernel k = StartKernel(OnlyKernelAst(Tensor::rand({8, 64}).sum({1})), Cpu().info());
  ExpectIllegal(k, {OptOp::kGroup, 1, 16}, "local memory");
  ExpectIllegal(k, {OptOp::kGroupTop, 1, 16}, "local memory");
  ExpectIllegal(k, {OptOp::kGroup, 0, 4}, "splits a reduce axis");
}

Tensor Matmul(int64_t m, int64_t k, int64_t n) { return Tensor::rand({m, k}).matmul(Tensor::rand({k, n})); }

TEST(Block, SumsTheReduceInBlocksIntoTheOutput) {
  UOpRef ast = OnlyKernelAst(Matmul(24, 96, 40));
  Kernel k = StartKernel(ast, Cpu().info());
  k.Apply({OptOp::kBlock, 2, 32});
  // the block loop comes first after the group ids; the reduce keeps one block
  EXPECT_EQ(k.AxesString(), "[GLOBAL:24, BLOCK:3, LOOP:40, REDUCE:32]");
  ExpectSameAsNoOpt(ast, {{OptOp::kBlock, 2, 32}});
  ExpectSameAsNoOpt(ast, {{OptOp::kBlock, 2, 3}});  // blocks of 3, 32 of them
  // with the matmul's register tile, threads over the columns, and an unrolled block:
  // [GLOBAL:2, BLOCK:4, LOOP:6, REDUCE:24, UPCAST:8, UPCAST:4, LOOP:5] before the UNROLL
  UOpRef wide = OnlyKernelAst(Matmul(24, 96, 80));
  ExpectSameAsNoOpt(wide, {{OptOp::kUpcast, 1, 8}, {OptOp::kUpcast, 0, 4}, {OptOp::kSwap, 0, 1},
                           {OptOp::kThread, 0, 5}, {OptOp::kBlock, 2, 24}, {OptOp::kUnroll, 3, 4}});
  // a reduce padded first: its masked iterations add nothing in any block
  UOpRef odd = OnlyKernelAst(Matmul(8, 30, 16));
  ExpectSameAsNoOpt(odd, {{OptOp::kPadTo, 2, 32}, {OptOp::kBlock, 2, 8}, {OptOp::kUpcast, 2, 16}});
}

TEST(Block, SwapMovesTheBlockLoopInsideRowBlocks) {
  // [GLOBAL:3 rows, LOOP:40, ..., LOOP:8] -> the row blocks leave the group's global axis for a
  // loop, the columns take it, and SWAP puts the row blocks outside the block loop.
  UOpRef ast = OnlyKernelAst(Matmul(24, 96, 40));
  Kernel k = StartKernel(ast, Cpu().info());
  std::vector<Opt> opts = {{OptOp::kThread, 0, 8}, {OptOp::kSwap, 0, 1}, {OptOp::kBlock, 2, 32}, {OptOp::kSwap, 1, 2}};
  for (const Opt& o : opts) k.Apply(o);
  EXPECT_EQ(k.AxesString(), "[GLOBAL:40, LOOP:3, BLOCK:3, REDUCE:32, LOOP:8]");
  ExpectSameAsNoOpt(ast, opts);
  // with the register tile, threads over the column tiles, and blocks of an odd length
  UOpRef wide = OnlyKernelAst(Matmul(48, 96, 80));
  ExpectSameAsNoOpt(wide, {{OptOp::kUpcast, 1, 8}, {OptOp::kUpcast, 0, 4}, {OptOp::kThread, 0, 3},
                           {OptOp::kSwap, 0, 1}, {OptOp::kThread, 0, 5}, {OptOp::kBlock, 2, 24},
                           {OptOp::kSwap, 1, 2}});
  // the block loop never becomes the group id: blocks of different groups would add at once
  Kernel blocked = StartKernel(ast, Cpu().info());
  blocked.Apply({OptOp::kBlock, 2, 32});
  ExpectIllegal(blocked, {OptOp::kSwap, 0, 1}, "two different output axes");
}

TEST(Block, IllegalCases) {
  Kernel k = StartKernel(OnlyKernelAst(Matmul(8, 64, 16)), Cpu().info());
  ExpectIllegal(k, {OptOp::kBlock, 0, 4}, "splits a reduce axis");
  ExpectIllegal(k, {OptOp::kBlock, 2, 5}, "must divide");
  ExpectIllegal(k, {OptOp::kBlock, 2, 64}, "must divide");
  Kernel blocked = k;
  blocked.Apply({OptOp::kBlock, 2, 16});
  ExpectIllegal(blocked, {OptOp::kBlock, 3, 4}, "a sum over axis 3 itself");  // already summed in parts
  ExpectIllegal(blocked, {OptOp::kUpcast, 1, 2}, "needs an output axis");     // the block loop is no output
  // a sum with math after it (the mean's scale) and a max cannot be summed in blocks
  Tensor x = Tensor::rand({8, 64});
  ExpectIllegal(StartKernel(OnlyKernelAst(x.mean({1})), Cpu().info()), {OptOp::kBlock, 1, 16}, "itself");
  ExpectIllegal(StartKernel(OnlyKernelAst(x.max({1})), Cpu().info()), {OptOp::kBlock, 1, 16}, "itself");
}

TEST(Block, InBeamsActionList) {
  Kernel k = StartKernel(OnlyKernelAst(Matmul(16, 512, 32)), Cpu().info());
  bool found = false;
  for (const std::vector<Opt>& opts : BeamActions(k, Target::For(Cpu().info())))
    found = found || (opts.size() == 1 && opts[0] == Opt{OptOp::kBlock, 2, 128});
  EXPECT_TRUE(found);
}

TEST(OptText, NewOpsRoundTrip) {
  std::vector<Opt> opts = {{OptOp::kPadTo, 1, 32}, {OptOp::kSwap, 0, 2}, {OptOp::kGroupTop, 3, 16}, {OptOp::kGroup, 2, 4},
                           {OptOp::kBlock, 2, 256}};
  std::string text = OptsToString(opts);
  EXPECT_EQ(text, "PADTO:1:32;SWAP:0:2;GROUPTOP:3:16;GROUP:2:4;BLOCK:2:256");
  EXPECT_EQ(ParseOpts(text), opts);
  EXPECT_EQ(ParseOpts("PADDO:1:32"), std::nullopt);
}

}  // namespace
}  // namespace tg::compiler
