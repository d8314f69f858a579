// The llvm-ir renderer: the text it writes (calling convention, loops, vectors, intrinsics) and, end to
// end, that a corpus of kernels JIT-compiled by the CPU plugin from llvm-ir gives the results the C path
// gives. The CPU plugin picks its dialect once per process (TG_CPU_DIALECT), so each path runs in a
// forked child that starts before this process touches the runtime.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "compiler/codegen/codegen.h"
#include "compiler/render/llvm_renderer.h"
#include "compiler/render/renderer.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gtest/gtest.h"
#include "runtime/buffer.h"
#include "runtime/device_registry.h"

namespace tg::compiler {
namespace {

std::vector<float> Data(size_t n, int salt) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * 7919 + salt * 104729) % 2003) / 1001.0 - 0.9);
  return v;
}

Tensor F(const std::vector<float>& v, Shape shape) { return Tensor::from_vector<float>(v, shape); }

// Each op family the front end lowers, with odd sizes so vectors have tails and gates.
std::vector<Tensor> Corpus() {
  Tensor a = F(Data(16 * 37, 1), {16, 37}), b = F(Data(37, 2), {37});
  Tensor m = F(Data(37 * 24, 3), {37, 24});
  Tensor i = Tensor::from_vector<int32_t>({3, -7, 12, 5, 0, -1, 9, 100});
  Tensor d = F(Data(64, 4), {64}).cast(dtypes::float64);
  Tensor e = (a - a.max({1}, true)).exp();
  Tensor big = F(Data(4096, 5), {4096});
  return {
      ((a * b + 1).relu() - b.abs().sqrt()) / (a * a + 1),
      (a.exp() + a.abs().log() + a.sin()).maximum(a),
      (a > 0.1f).where(a, b * 2),
      a.sum({1}), a.max({0}), a.mean(), e / e.sum({1}, true),
      a.matmul(m), (a.matmul(m) + 1).relu().sum({0}),
      a.pad({{1, 2}, {0, 3}}).flip({0}).shrink({{1, 10}, {2, 30}}).permute({1, 0}),
      (i * 3 + 1) / 2, i.cast(dtypes::float32) * 0.5f, (i < 4).cast(dtypes::int32).sum(),
      i % 3, (i > 2).where(i, -i), d * 2.5 + d.exp(), (big * 0.5f).exp() + big.sqrt(), big.sum(),
      (big > 0.0f).cast(dtypes::float32) * big,
      // a weight gradient behind a ReLU: on few cores the vectors go along the outputs, whose store is
      // strided (a scatter)
      ((F(Data(128 * 512, 8), {128, 512}) + F(Data(512, 9), {512})) > 0.0f)
          .where(F(Data(128 * 512, 10), {128, 512}), 0.0f)
          .transpose()
          .matmul(F(Data(128 * 96, 11), {128, 96})),
      // padding gates the 32 columns' vector lanes at the border: masked vector loads
      F(Data(2 * 3 * 9 * 32, 6), {2, 3, 9, 32}).conv2d(F(Data(4 * 3 * 9, 7), {4, 3, 3, 3}), std::nullopt, 1, 1, 1,
                                                        {1, 1, 2, 0}),
  };
}

// Runs the corpus with the CPU plugin's |dialect| first in a child process; returns every result's
// bytes, or "" when the child failed (its stderr says why).
std::string RunCorpusInChild(const char* dialect) {
  std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/corpus_" + dialect;
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TG_CPU_DIALECT", dialect, 1);
    std::ofstream out(path, std::ios::binary);
    try {
      auto* cpu = runtime::DeviceRegistry::Global().GetDevice("CPU").value();
      if (cpu->info().source_dialects.at(0) != dialect) _exit(3);
      for (Tensor& t : Corpus()) {
        if (t.dtype() == dtypes::float64) t = t.cast(dtypes::float32);
        if (t.dtype() == dtypes::int32) t = t.cast(dtypes::float32);
        std::vector<float> v = t.to_vector<float>();
        uint64_t n = v.size();
        out.write(reinterpret_cast<const char*>(&n), sizeof n);
        out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child (%s): %s\n", dialect, e.what());
      _exit(2);
    }
    out.close();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Must run before anything in this process loads plugins: the children inherit a clean runtime.
TEST(LlvmIr, CorpusAgreesWithTheCPath) {
  std::string c = RunCorpusInChild("c"), llvm = RunCorpusInChild("llvm-ir");
  ASSERT_FALSE(c.empty()) << "the C path failed";
  ASSERT_FALSE(llvm.empty()) << "the llvm-ir path failed (see stderr)";
  ASSERT_EQ(c.size(), llvm.size());
  size_t pos = 0;
  int tensor = 0;
  while (pos < c.size()) {
    uint64_t n;
    std::memcpy(&n, c.data() + pos, sizeof n);
    pos += sizeof n;
    for (uint64_t k = 0; k < n; ++k, pos += sizeof(float)) {
      float x, y;
      std::memcpy(&x, c.data() + pos, sizeof x);
      std::memcpy(&y, llvm.data() + pos, sizeof y);
      // gcc contracts a*b+c into FMA and the two compilers order vector reductions differently.
      if (std::isnan(x) && std::isnan(y)) continue;
      ASSERT_NEAR(x, y, 1e-5f * std::max(1.0f, std::fabs(x))) << "tensor " << tensor << " element " << k;
    }
    ++tensor;
  }
  EXPECT_EQ(tensor, static_cast<int>(Corpus().size()));
}

std::string RenderOnly(const Tensor& t) {
  // The real CPU's properties (vector width, cores) with llvm-ir first. Loads the plugins, so only
  // tests after CorpusAgreesWithTheCPath may call this.
  runtime::DeviceInfo cpu = runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info();
  cpu.source_dialects = {"llvm-ir", "c"};  // the llvm-ir renderer, with SIMD vectors
  std::string text;
  for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items)
    if (item.kind == ScheduleItem::Kind::kKernel) text += GenerateKernel(item.ast, cpu).source.source;
  return text;
}

TEST(LlvmIr, TextFollowsTheCCallingConvention) {
  EXPECT_NE(RendererForDialect("llvm-ir"), nullptr);
  std::string ir = RenderOnly(F(Data(64 * 64, 1), {64, 64}).sum({1}));
  EXPECT_NE(ir.find("define i32 @r_"), std::string::npos) << ir;
  EXPECT_NE(ir.find("(ptr noalias nocapture readonly %d, ptr noalias nocapture readonly %w)"), std::string::npos);
  EXPECT_NE(ir.find("getelementptr inbounds i8, ptr %d, i64 40"), std::string::npos);  // ->buffers
  EXPECT_NE(ir.find("phi i32"), std::string::npos) << ir;                                 // a loop
  EXPECT_NE(ir.find("alloca"), std::string::npos) << ir;                                  // an accumulator
  EXPECT_EQ(ir.find("fast"), std::string::npos);                                          // no fast-math
}

TEST(LlvmIr, VectorsMasksAndIntrinsics) {
  Tensor a = F(Data(256, 1), {256});
  std::string vec = RenderOnly((a * 2 + 1).maximum(a));
  EXPECT_NE(vec.find("x float>"), std::string::npos) << vec;
  EXPECT_NE(vec.find("fcmp olt <"), std::string::npos) << vec;  // MAX through a <N x i1> mask
  std::string math = RenderOnly(a.exp() + a.sqrt());
  EXPECT_NE(math.find("@llvm.sqrt."), std::string::npos) << math;
  // a float32 vector's exp2 is a polynomial (compiler/codegen/transcendental.h), not a call per lane
  EXPECT_EQ(math.find("@llvm.exp2."), std::string::npos) << math;
  EXPECT_NE(math.find("declare "), std::string::npos) << math;
  EXPECT_EQ(LlvmType(dtypes::float32.vec(16)), "<16 x float>");
  EXPECT_EQ(LlvmType(dtypes::bool_.vec(8)), "<8 x i1>");
  EXPECT_EQ(LlvmMemType(dtypes::bool_), "i8");
}

// A reduce vectorized along its own axis ends in a sum of its vector's lanes, in lane order: one
// ordered llvm.vector.reduce.fadd (no reassoc flag, start -0.0), not a chain of extracts and adds.
// The corpus test above holds its results to the C path's bit for bit.
TEST(LlvmIr, LaneSumsAreOneOrderedReduce) {
  std::string ir = RenderOnly(F(Data(64 * 256, 1), {64, 256}).sum({1}));
  EXPECT_NE(ir.find("call float @llvm.vector.reduce.fadd.v"), std::string::npos) << ir;
  EXPECT_NE(ir.find("(float 0x8000000000000000, <"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("reassoc"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("extractelement"), std::string::npos) << ir;
}

// x (M, K) @ w (N, K).T with the reduce vectorized along K by |lanes| and the outputs tiled by
// |tile_m| x |tile_n|: every accumulator's lanes end in one lane sum, the tile's sums side by side.
struct LaneSumCase {
  int m, n, k, lanes, tile_m, tile_n;
};

// Values whose products are exact in float32 but whose sums round, so that every grouping of the
// lanes' additions gives its own result.
std::vector<float> RoundingData(size_t n, int salt) {
  const float kinds[] = {16777216.0f, 1.0f, -3.0f, 4096.0f, 0.5f, -16777216.0f, 7.0f, -0.25f, 2048.0f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = kinds[(i * 5 + salt * 3 + i / 7) % 9];
  return v;
}

// What the kernel computes, in its order: lane l accumulates x[k] * w[k] (exact) for k = l, l +
// lanes, ... in k order, then the lanes are added in lane order. |pairwise| adds the lanes as a
// balanced tree instead, the grouping a reassociating reduce would pick.
std::vector<float> LaneOrderReference(const LaneSumCase& c, const std::vector<float>& x, const std::vector<float>& w,
                                      bool pairwise) {
  std::vector<float> out(c.m * c.n);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      std::vector<float> lane(c.lanes, 0.0f);
      for (int k = 0; k < c.k; ++k) lane[k % c.lanes] += x[i * c.k + k] * w[j * c.k + k];
      for (int width = c.lanes; pairwise && width > 1; width /= 2)
        for (int l = 0; l < width / 2; ++l) lane[l] = lane[2 * l] + lane[2 * l + 1];
      float sum = lane[0];
      for (int l = 1; !pairwise && l < c.lanes; ++l) sum += lane[l];
      out[i * c.n + j] = sum;
    }
  return out;
}

// Renders the case's one kernel as llvm-ir with its opts, runs it on the CPU plugin, and returns
// the output; |ir| gets the text.
std::vector<float> RunLaneSumCase(const LaneSumCase& c, const std::vector<float>& x, const std::vector<float>& w,
                                  std::string* ir) {
  Tensor xt = F(x, {c.m, c.k}), wt = F(w, {c.n, c.k});
  Tensor y = xt.matmul(wt.transpose());
  Schedule s = CreateSchedule({y.uop()}, {y.device()});
  const ScheduleItem* kernel = nullptr;
  for (const ScheduleItem& item : s.items)
    if (item.kind == ScheduleItem::Kind::kKernel) kernel = &item;
  EXPECT_NE(kernel, nullptr);
  runtime::Device& cpu = *runtime::DeviceRegistry::Global().GetDevice("CPU").value();
  runtime::DeviceInfo info = cpu.info();
  info.source_dialects = {"llvm-ir", "c"};
  // Axis 1 first: a tile as tall as the output removes axis 0.
  std::vector<Opt> opts = {{OptOp::kUnroll, 2, c.lanes}, {OptOp::kUpcast, 1, c.tile_n}};
  if (c.tile_m > 1) opts.push_back({OptOp::kUpcast, 0, c.tile_m});
  GeneratedKernel k = GenerateKernel(kernel->ast, info, opts);
  *ir = k.source.source;
  auto program = cpu.GetProgram(k.source);
  EXPECT_TRUE(program.ok()) << program.status();
  // Parameters by their element counts: the output (M * N), x (M * K), w (N * K), all distinct.
  std::map<int64_t, int64_t> elements;
  for (const UOpRef& u : kernel->ast->toposort())
    if (u->op() == Ops::kIndex && u->src(0)->op() == Ops::kDefineGlobal) {
      int64_t& e = elements[u->src(0)->arg_as<int64_t>()];
      e = std::max(e, u->src(1)->vmax() + 1);
    }
  std::vector<std::shared_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::KernelArg> args;
  for (auto [param, count] : elements) {
    const std::vector<float>* data = count == c.m * c.k ? &x : count == c.n * c.k ? &w : nullptr;
    std::vector<float> zeros(count, 0.0f);
    buffers.push_back(runtime::Buffer::Create(cpu, count * sizeof(float)));
    EXPECT_TRUE(buffers.back()->CopyIn((data ? *data : zeros).data(), count * sizeof(float)).ok());
    args.push_back(runtime::KernelArg::Buf(buffers.back().get()));
  }
  EXPECT_TRUE(program.ok() && cpu.Launch(**program, k.dims, args, nullptr).ok());
  std::vector<float> out(c.m * c.n);
  EXPECT_TRUE(buffers.at(0)->CopyOut(out.data(), out.size() * sizeof(float)).ok());
  return out;
}

// A tile's lane sums are computed together (a transpose of the accumulators, then vector adds) and
// still add each accumulator's lanes in lane order: the results are those of the ordered sum bit for
// bit, which the balanced tree's differ from on this data.
TEST(LlvmIr, TiledLaneSumsAreTransposedAndStayInLaneOrder) {
  for (LaneSumCase c : {LaneSumCase{4, 8, 64, 16, 4, 4}, LaneSumCase{2, 3, 48, 16, 1, 3}, LaneSumCase{4, 6, 40, 8, 2, 2}}) {
    SCOPED_TRACE(testing::Message() << "M " << c.m << " N " << c.n << " K " << c.k << " lanes " << c.lanes);
    std::vector<float> x = RoundingData(c.m * c.k, 1), w = RoundingData(c.n * c.k, 2);
    std::vector<float> ordered = LaneOrderReference(c, x, w, false), tree = LaneOrderReference(c, x, w, true);
    ASSERT_NE(ordered, tree) << "the data cannot tell the groupings apart";
    std::string ir;
    std::vector<float> got = RunLaneSumCase(c, x, w, &ir);
    EXPECT_NE(ir.find("shufflevector <" + std::to_string(c.lanes) + " x float>"), std::string::npos) << ir;
    EXPECT_EQ(ir.find("llvm.vector.reduce.fadd"), std::string::npos) << ir;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], ordered[i]) << "output " << i;
  }
}

// A register tile's reduce loop (many accumulators) stays rolled; a one-accumulator loop is LLVM's
// to unroll.
TEST(LlvmIr, TiledReduceLoopsAreNotUnrolled) {
  Tensor a = F(Data(64 * 64, 1), {64, 64}), b = F(Data(64 * 64, 2), {64, 64});
  std::string tiled = RenderOnly(a.matmul(b));
  EXPECT_NE(tiled.find("!llvm.loop !1"), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("!0 = !{!\"llvm.loop.unroll.disable\"}"), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("!1 = distinct !{!1, !0}"), std::string::npos) << tiled;
  std::string single = RenderOnly(F(Data(7 * 37, 3), {7, 37}).sum({1}));
  EXPECT_EQ(single.find("llvm.loop"), std::string::npos) << single;
}

// A vector along an axis the store does not walk goes to memory as one masked scatter, not an
// extract, an address and a store per lane.
TEST(LlvmIr, StridedLaneStoresAreOneScatter) {
  Tensor g = F(Data(128 * 64, 1), {128, 64}), x = F(Data(128 * 32, 2), {128, 32});
  Tensor dw = g.transpose().matmul(x);  // stored (64, 32): lanes along the 64 are 32 floats apart
  runtime::DeviceInfo cpu = runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info();
  cpu.source_dialects = {"llvm-ir", "c"};
  std::string ir;
  for (const ScheduleItem& item : CreateSchedule({dw.uop()}, {dw.device()}).items)
    if (item.kind == ScheduleItem::Kind::kKernel)
      ir += GenerateKernel(item.ast, cpu, {Opt{OptOp::kUpcast, 0, 8}}).source.source;
  EXPECT_NE(ir.find("call void @llvm.masked.scatter.v8f32.v8p0(<8 x float>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("store float"), std::string::npos) << ir;
}

TEST(LlvmIr, GatedLoadsBranchAroundTheLoad) {
  Tensor a = F(Data(30, 1), {5, 6});
  Tensor padded = a.pad({{1, 1}, {2, 0}});
  runtime::DeviceInfo cpu = runtime::DeviceRegistry::Global().GetDevice("CPU").value()->info();
  cpu.source_dialects = {"llvm-ir", "c"};
  std::string ir;
  // No opts: scalar loads whatever the CPU's width (AVX2's 8 lanes would take the 8 columns as one
  // masked vector load instead).
  for (const ScheduleItem& item : CreateSchedule({padded.uop()}, {padded.device()}).items)
    if (item.kind == ScheduleItem::Kind::kKernel) ir += GenerateKernel(item.ast, cpu, {}).source.source;
  // The load sits behind the gate's branch and the join reads 0 where the gate is false: no address
  // is computed for a masked-off element, so LLVM cannot hoist it into the common path.
  EXPECT_NE(ir.find("label %ld"), std::string::npos) << ir;
  EXPECT_NE(ir.find("zeroinitializer, %"), std::string::npos) << ir;  // the phi's masked-off value
  EXPECT_EQ(ir.find(", i32 0\n"), std::string::npos) << ir;  // no index selected to element 0
}

// A reduce over a concatenation reads each source under its own gate (one true at a time): every
// gated read must branch, or -O2 computes every source's address on every step.
TEST(LlvmIr, EachSourceOfAConcatenationBranches) {
  Tensor a = F(Data(4 * 8, 1), {4, 8}), b = F(Data(4 * 8, 2), {4, 8}), c = F(Data(4 * 8, 3), {4, 8});
  Tensor w = F(Data(24 * 16, 4), {24, 16});
  std::string ir = RenderOnly(a.cat({b, c}, 1).matmul(w));
  size_t branches = 0;
  for (size_t p = ir.find(".join:"); p != std::string::npos; p = ir.find(".join:", p + 1)) ++branches;
  EXPECT_GE(branches, 3u) << ir;
}

}  // namespace
}  // namespace tg::compiler
