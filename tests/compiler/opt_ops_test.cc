// GROUP, GROUPTOP, PADTO and SWAP (tinygrad's apply_opt checks): each legal case computes what the
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

namespace tg::compiler {
namespace {

runtime::Device& Cpu() { return *runtime::DeviceRegistry::Global().GetDevice("CPU").value(); }

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

// Runs |ast| with |opts| on fresh buffers (inputs filled from a fixed seed) and returns the output.
std::vector<float> RunWith(const UOpRef& ast, const std::vector<Opt>& opts) {
  std::map<int64_t, int64_t> elements;  // parameter -> largest index + 1
  for (const UOpRef& u : ast->toposort())
    if (u->op() == Ops::kIndex && u->src(0)->op() == Ops::kDefineGlobal) {
      int64_t& e = elements[u->src(0)->arg_as<int64_t>()];
      e = std::max(e, u->src(1)->vmax() + 1);
    }
  GeneratedKernel k = GenerateKernel(ast, Cpu().info(), opts);
  auto program = Cpu().GetProgram(k.source);
  EXPECT_TRUE(program.ok()) << program.status() << "\n" << k.source.source;
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::KernelArg> args;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto [param, n] : elements) {
    std::vector<float> data(n);
    for (float& x : data) x = param == 0 ? 0 : d(rng);
    buffers.push_back(runtime::Buffer::Create(Cpu(), n * sizeof(float)));
    EXPECT_TRUE(buffers.back()->CopyIn(data.data(), n * sizeof(float)).ok());
    args.push_back(runtime::KernelArg::Buf(buffers.back().get()));
  }
  EXPECT_TRUE(Cpu().Launch(**program, k.dims, args, nullptr).ok());
  std::vector<float> out(elements.at(0));
  EXPECT_TRUE(buffers[0]->CopyOut(out.data(), out.size() * sizeof(float)).ok());
  return out;
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

TEST(PadTo, OutputAxisMasksTheAddedIterations) {
  UOpRef ast = OnlyKernelAst(Tensor::rand({30, 20}) * 2 + 1);
  Kernel k = StartKernel(ast, Cpu().info());
  k.Apply({OptOp::kPadTo, 0, 32});
  EXPECT_EQ(k.axes()[0].extent(), 32);
  ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 0, 32}});
  ExpectSameAsNoOpt(ast, {{OptOp::kPadTo, 1, 32}, {OptOp::kUpcast, 1, 8}});  // pad then vectorize 32 = 4 x 8
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

TEST(OptText, NewOpsRoundTrip) {
  std::vector<Opt> opts = {{OptOp::kPadTo, 1, 32}, {OptOp::kSwap, 0, 2}, {OptOp::kGroupTop, 3, 16}, {OptOp::kGroup, 2, 4}};
  std::string text = OptsToString(opts);
  EXPECT_EQ(text, "PADTO:1:32;SWAP:0:2;GROUPTOP:3:16;GROUP:2:4");
  EXPECT_EQ(ParseOpts(text), opts);
  EXPECT_EQ(ParseOpts("PADDO:1:32"), std::nullopt);
}

}  // namespace
}  // namespace tg::compiler
