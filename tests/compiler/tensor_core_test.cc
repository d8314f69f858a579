// Tensor cores without a GPU: each instruction's fragment layout covers its tiles as a warp must;
// the TC opt splits a half or bfloat16 matmul's axes by the tile and refuses, saying why, what the
// instruction cannot compute; the lowered kernel calls the instruction once a tile step and stores
// each accumulator element; the heuristic and BEAM choose it (TC=0 keeps it off). Whether the
// kernels compile is tests/compiler/gpu_codegen_test.cc; what they compute on hardware,
// tensor_core_numerics_test.cc (run by tools/gpu_check.sh).
#include <cstdlib>
#include <map>
#include <string>

#include "compiler/codegen/beam.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/heuristic.h"
#include "compiler/codegen/kernel.h"
#include "compiler/schedule/schedule.h"
#include "compiler/target.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

using ::testing::HasSubstr;

runtime::DeviceInfo Device(const std::string& dialect, const std::string& arch) {
  runtime::DeviceInfo d;
  d.name = arch + "(compile-only)";
  d.source_dialects = {dialect};
  d.arch = arch;
  d.max_group_threads = 1024;
  d.local_mem_bytes = 48 << 10;
  d.caps = TG_CAP_FP16;
  return d;
}

Target Sm90() { return Target::For(Device("cuda-c", "sm_90")); }

Tensor Half(Shape s) { return Tensor::rand(s).cast(dtypes::float16).realize(); }

UOpRef OnlyKernelAst(const Tensor& t) {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  return s.items.at(0).ast;
}

int ReduceAxis(const Kernel& k) {
  for (size_t i = 0; i < k.axes().size(); ++i)
    if (k.axes()[i].type == AxisType::kReduce) return static_cast<int>(i);
  return -1;
}

// Bit by bit, as the layout's comment in tensor_core.h reads.
int64_t Coordinate(const CoordinateBits& bits, int lane, int element) {
  int64_t v = 0;
  for (size_t i = 0; i < bits.size(); ++i)
    v |= static_cast<int64_t>(bits[i] >= kElement ? (element >> (bits[i] - kElement)) & 1 : (lane >> bits[i]) & 1) << i;
  return v;
}

// How many (lane, element) pairs hold each (row, col) of a rows x cols tile; each must be inside it.
std::map<std::pair<int64_t, int64_t>, int> Holders(const TensorCore& tc, const CoordinateBits& row,
                                                   const CoordinateBits& col, int elements, int rows, int cols) {
  std::map<std::pair<int64_t, int64_t>, int> held;
  for (int lane = 0; lane < tc.threads; ++lane)
    for (int e = 0; e < elements; ++e) {
      int64_t r = Coordinate(row, lane, e), c = Coordinate(col, lane, e);
      EXPECT_LT(r, rows) << tc.name;
      EXPECT_LT(c, cols) << tc.name;
      ++held[{r, c}];
    }
  return held;
}

void ExpectEveryElementHeld(const std::map<std::pair<int64_t, int64_t>, int>& held, int rows, int cols, int times,
                            const std::string& what) {
  EXPECT_EQ(held.size(), static_cast<size_t>(rows * cols)) << what;
  for (const auto& [at, n] : held) EXPECT_EQ(n, times) << what << " (" << at.first << ", " << at.second << ")";
}

TEST(TensorCore, EveryLayoutCoversItsTilesAsAWarpMust) {
  int checked = 0;
  for (auto [dialect, arch] : std::vector<std::pair<std::string, std::string>>{
           {"cuda-c", "sm_80"}, {"hip-c", "gfx90a"}, {"hip-c", "gfx942"}, {"hip-c", "gfx1100"}}) {
    for (const TensorCore& tc : TensorCoresFor(dialect, arch)) {
      // A and B: every element of the tile in some lane (lanes may hold copies, all equally many);
      // C: every output in exactly one lane, or two lanes would store one output.
      int a = tc.a_elements(), b = tc.b_elements(), c = tc.c_elements();
      ExpectEveryElementHeld(Holders(tc, tc.a_row, tc.a_k, a, tc.m, tc.k), tc.m, tc.k, tc.threads * a / (tc.m * tc.k),
                             tc.name + " A");
      ExpectEveryElementHeld(Holders(tc, tc.b_k, tc.b_col, b, tc.k, tc.n), tc.k, tc.n, tc.threads * b / (tc.k * tc.n),
                             tc.name + " B");
      EXPECT_EQ(tc.threads * c, tc.m * tc.n) << tc.name;
      ExpectEveryElementHeld(Holders(tc, tc.c_row, tc.c_col, c, tc.m, tc.n), tc.m, tc.n, 1, tc.name + " C");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5);  // mma f16 and bf16, MFMA twice, WMMA
  EXPECT_TRUE(TensorCoresFor("cuda-c", "sm_75").empty());
  EXPECT_TRUE(TensorCoresFor("ptx", "sm_90").empty());
  EXPECT_TRUE(TensorCoresFor("opencl-c", "").empty());
}

TEST(TensorCore, TcSplitsAMatmulsAxesByTheTile) {
  Kernel k = StartKernel(OnlyKernelAst(Half({64, 96}).matmul(Half({96, 48}))), Sm90());
  ASSERT_EQ(k.AxesString(), "[GLOBAL:64, GLOBAL:48, REDUCE:96]");
  k.Apply({OptOp::kTc, 2, 0});
  EXPECT_EQ(k.AxesString(), "[GLOBAL:4, GLOBAL:6, REDUCE:6, TC:16, TC:8, TC:16]");
  ASSERT_NE(k.tensor_core(), nullptr);
  EXPECT_EQ(k.tensor_core()->name, "mma_m16n8k16_f16_f32");
  // a single tile: the axes are the tile's whole
  Kernel one = StartKernel(OnlyKernelAst(Half({16, 16}).matmul(Half({16, 8}))), Sm90());
  one.Apply({OptOp::kTc, 2, 0});
  EXPECT_EQ(one.AxesString(), "[TC:16, TC:8, TC:16]");
}

TEST(TensorCore, TheKernelCallsTheInstructionAndStoresEachAccumulatorElement) {
  UOpRef ast = OnlyKernelAst((Half({32, 64}).matmul(Half({64, 16})) + Half({16})).relu());
  GeneratedKernel k = GenerateKernel(ast, Sm90(), {{OptOp::kTc, 2, 0}});
  const std::string& src = k.source.source;
  EXPECT_EQ(k.dims.group_size[0], 32u);  // a warp of lanes
  size_t call = src.find("tg_mma_m16n8k16_f16_f32(", src.find("__global__"));
  ASSERT_NE(call, std::string::npos) << src;
  EXPECT_EQ(src.find("tg_mma_m16n8k16_f16_f32(", call + 1), std::string::npos) << "one call a k step:\n" << src;
  int stores = 0;
  for (size_t at = src.find("data0["); at != std::string::npos; at = src.find("data0[", at + 1)) ++stores;
  EXPECT_EQ(stores, 4) << src;  // the lane's 4 of the 16x8 tile
  EXPECT_THAT(src, HasSubstr(", acc0);")) << "the instruction accumulates itself:\n" << src;
}

TEST(TensorCore, AfterTcOnlyMoreTilesApplyAndTheRestSayWhy) {
  Kernel k = StartKernel(OnlyKernelAst(Half({64, 96}).matmul(Half({96, 48}))), Sm90());
  k.Apply({OptOp::kTc, 2, 0});
  Kernel more = k;
  more.Apply({OptOp::kUpcast, 0, 2});
  more.Apply({OptOp::kLocal, 1, 2});
  GeneratedKernel g = GenerateKernel(OnlyKernelAst(Half({64, 96}).matmul(Half({96, 48}))), Sm90(),
                                     {{OptOp::kTc, 2, 0}, {OptOp::kUpcast, 0, 2}, {OptOp::kLocal, 1, 2}});
  EXPECT_EQ(g.dims.group_size[0], 32u);
  EXPECT_EQ(g.dims.group_size[1], 2u);
  auto illegal = [&](const Opt& o, const std::string& why) {
    Kernel copy = k;
    try {
      copy.Apply(o);
      ADD_FAILURE() << o.str() << " should be illegal";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  };
  illegal({OptOp::kUnroll, 2, 2}, "after TC only LOCAL and UPCAST");
  illegal({OptOp::kTc, 2, 0}, "after TC only LOCAL and UPCAST");
  Kernel upcast_first = StartKernel(OnlyKernelAst(Half({64, 96}).matmul(Half({96, 48}))), Sm90());
  upcast_first.Apply({OptOp::kUpcast, 0, 2});
  EXPECT_THROW(upcast_first.Apply({OptOp::kTc, 2, 0}), Error);
}

TEST(TensorCore, IllegalCasesSayWhy) {
  auto error_of = [](const Tensor& t, const Target& target, int tc = 0) -> std::string {
    Kernel k = StartKernel(OnlyKernelAst(t), target);
    try {
      k.Apply({OptOp::kTc, ReduceAxis(k), tc});
    } catch (const Error& e) {
      return e.what();
    }
    return "legal";
  };
  Tensor a = Tensor::rand({32, 32}).realize(), b = Tensor::rand({32, 32}).realize();
  EXPECT_THAT(error_of(a.matmul(b), Sm90()), HasSubstr("products of two float16 operands"));
  EXPECT_THAT(error_of(Half({20, 32}).matmul(Half({32, 12})), Sm90()), HasSubstr("divisible by 16"));
  EXPECT_THAT(error_of(Half({32, 32}).matmul(Half({32, 32})), Sm90(), 2), HasSubstr("tensor cores 0 to 1"));
  EXPECT_THAT(error_of(Half({32, 32}).sum({1}) , Sm90()), HasSubstr("products of two"));
  EXPECT_THAT(error_of(Half({32, 32}).matmul(Half({32, 32})), Target::For(Device("cuda-c", "sm_75"))),
              HasSubstr("has none this compiler uses; tensor cores are used on cuda-c on sm_80"));
  EXPECT_THAT(error_of(Half({32, 32}).matmul(Half({32, 32})), Target::For(Device("ptx", "sm_90"))),
              HasSubstr("has none this compiler uses"));
  EXPECT_EQ(error_of(Half({32, 32}).matmul(Half({32, 32})), Target::For(Device("hip-c", "gfx90a"))), "legal");
}

TEST(TensorCore, TheHeuristicAndBeamChooseItAndTcZeroTurnsItOff) {
  UOpRef ast = OnlyKernelAst(Half({64, 96}).matmul(Half({96, 48})));
  Kernel k = StartKernel(ast, Sm90());
  ApplyHeuristic(k, Sm90());
  ASSERT_NE(k.tensor_core(), nullptr) << k.AxesString();
  bool beam_has_tc = false;
  for (const std::vector<Opt>& action : BeamActions(StartKernel(ast, Sm90()), Sm90()))
    beam_has_tc = beam_has_tc || action.back().op == OptOp::kTc;
  EXPECT_TRUE(beam_has_tc);
  setenv("TC", "0", 1);
  Kernel off = StartKernel(ast, Sm90());
  ApplyHeuristic(off, Sm90());
  unsetenv("TC");
  EXPECT_EQ(off.tensor_core(), nullptr) << off.AxesString();
}

}  // namespace
}  // namespace tg::compiler
