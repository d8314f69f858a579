// The ptx renderer: every kernel of an end-to-end corpus (float16 and grouped reduces through shared
// memory included), rendered as PTX for sm_80 and sm_90, must assemble with the CUDA toolkit's ptxas
// (a separate process: no vendor LLVM enters this one). Skipped, with the reason, where
// /usr/local/cuda/bin/ptxas (or $PTXAS) is absent. Plus text checks that need no toolkit.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/kernel.h"
#include "compiler/render/ptx_renderer.h"
#include "compiler/schedule/schedule.h"
#include "frontend/tg.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tg::compiler {
namespace {

std::string Ptxas() {
  const char* env = getenv("PTXAS");
  std::string path = env ? env : "/usr/local/cuda/bin/ptxas";
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

// Runs ptxas on |ptx|; returns "" on success, else its output.
std::string Assemble(const std::string& ptxas, const std::string& ptx, const std::string& arch, const std::string& name) {
  std::string dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  std::string in = dir + "/" + name + ".ptx", out = dir + "/" + name + ".cubin", log = dir + "/" + name + ".log";
  std::ofstream(in) << ptx;
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = freopen(log.c_str(), "w", stderr);
    (void)f;
    dup2(fileno(stderr), 1);
    execl(ptxas.c_str(), ptxas.c_str(), ("-arch=" + arch).c_str(), in.c_str(), "-o", out.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  std::ifstream l(log);
  std::stringstream s;
  s << l.rdbuf();
  return "ptxas failed: " + s.str();
}

std::vector<Tensor> Corpus() {
  Tensor a = Tensor::rand({16, 32}), b = Tensor::rand({32}), m = Tensor::rand({32, 24});
  Tensor i = Tensor::from_vector<int32_t>({3, -7, 12, 5}), d = Tensor::rand({8}).cast(dtypes::float64);
  Tensor e = (a - a.max({1}, true)).exp();
  Tensor pos = Variable("pos", 0, 31).tensor();  // unbound: these kernels are assembled, never launched
  return {
      ((a * b + 1).relu() - b.sqrt()) / (a * a + 1),
      (a.exp() + a.log() + a.sin()).maximum(a),
      (a > 0.5f).where(a, b * 2),
      a.sum({1}), a.max({0}), a.mean(), e / e.sum({1}, true),
      a.matmul(m), (a.matmul(m) + 1).relu().sum({0}),
      a.pad({{1, 2}, {0, 3}}).flip({0}).shrink({{1, 10}, {2, 30}}).permute({1, 0}),
      (a * pos.cast(dtypes::float32)).sum({1}), (Tensor::arange(32).cast(dtypes::int32) <= pos).where(b, 0.0f).sum(),
      a.shrink_to(1, pos + 1).softmax(1).sum({1}),  // reduces that loop to a symbolic length
      (i * 3 + 1) / 2, i.cast(dtypes::float32) * 0.5f, (i < 4).cast(dtypes::int32).sum(), i % 3, i << 2,
      d * 2.5 + d.sqrt(), d.exp(), i.cast(dtypes::int64) * int64_t{3}, (a > 0.5f).cast(dtypes::bool_),
  };
}

// float16 through every path the renderer has: loads and stores, native f16 math (add, mul, fma,
// neg, compares, max, where), math promoted to float32 (div, sqrt, exp2 via codegen), casts to and
// from every other type, constants, and reduces in and into half.
std::vector<Tensor> HalfCorpus() {
  Tensor h = Tensor::empty({16, 32}, dtypes::float16, "CPU"), g = Tensor::empty({16, 32}, dtypes::float16, "CPU");
  Tensor a = Tensor::empty({16, 32}, dtypes::float32, "CPU"), i = Tensor::empty({16, 32}, dtypes::int32, "CPU");
  Tensor d = Tensor::empty({16, 32}, dtypes::float64, "CPU"), c = Tensor::empty({16, 32}, dtypes::int8, "CPU");
  Tensor u = Tensor::empty({16, 32}, dtypes::uint8, "CPU"), l = Tensor::empty({16, 32}, dtypes::int64, "CPU");
  return {
      h + g, h.cast(dtypes::float32), a.sum({1}).cast(dtypes::float16),
      h * g + 0.5f, -h, h.maximum(g), (h < g).where(h, g), (h == g).where(g, h), h.ne(g).cast(dtypes::float16),
      h / g, h.sqrt(), h.exp(), h.reciprocal(), h.trunc(), h.sin(),
      h.cast(dtypes::int32), i.cast(dtypes::float16), h.cast(dtypes::float64), d.cast(dtypes::float16),
      h.cast(dtypes::int8), c.cast(dtypes::float16), u.cast(dtypes::float16), h.cast(dtypes::uint8),
      h.cast(dtypes::int64), l.cast(dtypes::float16), h.cast(dtypes::bool_), (a > 0.5f).cast(dtypes::float16),
      h.bitcast(dtypes::int16), h.sum({1}), h.max({1}), h.max(),
  };
}

runtime::DeviceInfo PtxDevice(const std::string& arch) {
  runtime::DeviceInfo target;
  target.name = "CUDA(ptx)";
  target.arch = arch;
  target.source_dialects = {"ptx"};
  target.max_group_threads = 1024;
  target.max_group_size = {1024, 1024, 64};
  target.local_mem_bytes = 48 << 10;  // every CUDA GPU's static shared memory: the heuristic groups reduces
  target.caps = TG_CAP_FP16;
  return target;
}

// The kernels |t| schedules to, rendered for |arch| by the heuristic.
std::vector<GeneratedKernel> Render(const Tensor& t, const std::string& arch) {
  std::vector<GeneratedKernel> out;
  for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items)
    if (item.kind == ScheduleItem::Kind::kKernel) out.push_back(GenerateKernel(item.ast, PtxDevice(arch)));
  return out;
}

GeneratedKernel RenderOne(const Tensor& t, const std::string& arch = "sm_90") {
  std::vector<GeneratedKernel> k = Render(t, arch);
  EXPECT_EQ(k.size(), 1u);
  return k.at(0);
}

// |t|'s one kernel with its first reduce axis shared by |n| work items of a group (GROUP).
GeneratedKernel RenderGrouped(const Tensor& t, int64_t n, const std::string& arch = "sm_90") {
  Schedule s = CreateSchedule({t.uop()}, {t.device()});
  EXPECT_EQ(s.items.size(), 1u);
  Kernel start = StartKernel(s.items.at(0).ast, PtxDevice(arch));
  int axis = -1;
  for (size_t i = 0; i < start.axes().size() && axis < 0; ++i)
    if (start.axes()[i].type == AxisType::kReduce) axis = static_cast<int>(i);
  EXPECT_GE(axis, 0) << start.AxesString();
  return GenerateKernel(s.items.at(0).ast, PtxDevice(arch), {Opt{OptOp::kGroup, axis, n}});
}

TEST(Ptx, EveryCorpusKernelAssemblesForSm80AndSm90) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);  // the corpus runs on CPU; no vendor LLVM here
  std::string ptxas = Ptxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (/usr/local/cuda/bin/ptxas or $PTXAS): the CUDA toolkit is absent";
  std::vector<Tensor> corpus = Corpus(), half = HalfCorpus();
  corpus.insert(corpus.end(), half.begin(), half.end());
  for (const char* arch : {"sm_80", "sm_90"}) {
    int assembled = 0, refused = 0, shared = 0;
    for (const Tensor& t : corpus) {
      for (const ScheduleItem& item : CreateSchedule({t.uop()}, {t.device()}).items) {
        if (item.kind != ScheduleItem::Kind::kKernel) continue;
        GeneratedKernel k;
        try {
          k = GenerateKernel(item.ast, PtxDevice(arch));
        } catch (const Error& e) {  // float64 exp2/log2/sin have no PTX instruction: codegen gives them
          ASSERT_NE(std::string(e.what()).find("has no PTX instruction"), std::string::npos) << e.what();  // as polynomials
          ++refused;
          continue;
        }
        std::string err = Assemble(ptxas, k.source.source, arch, k.name + "_" + arch + "_" + std::to_string(assembled));
        ASSERT_EQ(err, "") << arch << " " << k.name << "\n" << k.source.source;
        ++assembled;
        shared += k.source.source.find(".shared") != std::string::npos;
      }
    }
    EXPECT_GE(assembled, 18 + 30) << arch;
    EXPECT_EQ(refused, 0) << arch;  // d.exp() (float64) assembles as a polynomial
    EXPECT_GE(shared, 3) << arch << ": the heuristic groups the corpus's reduces into few outputs";
  }
}

// GROUP kernels (float32, half, int and bool partials) and one the heuristic groups assemble for both targets.
TEST(Ptx, GroupedReducesAssembleForSm80AndSm90) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  std::string ptxas = Ptxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (/usr/local/cuda/bin/ptxas or $PTXAS): the CUDA toolkit is absent";
  Tensor a = Tensor::empty({8, 64}, dtypes::float32, "CPU"), h = Tensor::empty({8, 64}, dtypes::float16, "CPU");
  Tensor b = Tensor::empty({8, 64}, dtypes::bool_, "CPU");
  for (const char* arch : {"sm_80", "sm_90"}) {
    std::vector<GeneratedKernel> kernels = {RenderGrouped(a.sum({1}), 16, arch), RenderGrouped(h.max({1}), 16, arch),
                                            RenderGrouped(a.sum({1}).cast(dtypes::float16), 64, arch),
                                            RenderGrouped(b.cast(dtypes::int32).sum({1}), 8, arch),
                                            RenderGrouped(b.max({1}), 8, arch),
                                            RenderOne(Tensor::empty({4096}, dtypes::float32, "CPU").sum(), arch)};
    for (size_t i = 0; i < kernels.size(); ++i) {
      const GeneratedKernel& k = kernels[i];
      EXPECT_THAT(k.source.source, ::testing::HasSubstr("bar.sync 0;")) << k.source.source;
      std::string name = "grouped_" + std::string(arch) + "_" + std::to_string(i);
      std::string err = Assemble(ptxas, k.source.source, arch, name);
      ASSERT_EQ(err, "") << arch << " " << k.name << "\n" << k.source.source;
    }
  }
}

// What float16 looks like: .b16 registers loaded and stored untyped, native f16 add/mul/fma, exact
// widening and rounded narrowing conversions, constants as bits.
TEST(Ptx, HalfSpelling) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  Tensor h = Tensor::empty({256}, dtypes::float16, "CPU"), g = Tensor::empty({256}, dtypes::float16, "CPU");
  Tensor a = Tensor::empty({16, 32}, dtypes::float32, "CPU");
  using ::testing::HasSubstr;
  using ::testing::Not;
  std::string add = RenderOne(h + g).source.source;
  EXPECT_THAT(add, HasSubstr("ld.global.b16 %rs"));
  EXPECT_THAT(add, HasSubstr("add.f16 %rs"));
  EXPECT_THAT(add, HasSubstr("st.global.b16 ["));
  EXPECT_THAT(add, Not(HasSubstr("cvt."))) << add;  // no detour through float32 (cvta is the address)
  std::string widen = RenderOne(h.cast(dtypes::float32)).source.source;
  EXPECT_THAT(widen, HasSubstr("cvt.f32.f16 %f")) << widen;
  std::string into_half = RenderOne(a.sum({1}).cast(dtypes::float16)).source.source;
  EXPECT_THAT(into_half, HasSubstr("cvt.rn.f16.f32 %rs")) << into_half;
  std::string fma = RenderOne(h * g + 0.5f).source.source;
  EXPECT_THAT(fma, HasSubstr("mov.b16 %rs"));
  EXPECT_THAT(fma, HasSubstr(", 0x3800;")) << fma;  // 0.5 in binary16
  EXPECT_THAT(fma, ::testing::AnyOf(HasSubstr("fma.rn.f16"), HasSubstr("mul.f16"))) << fma;
  // binary16 bits of a negative, the largest finite and the smallest subnormal half
  EXPECT_THAT(RenderOne(h * -2.0f).source.source, HasSubstr(", 0xC000;"));
  EXPECT_THAT(RenderOne(h + 65504.0f).source.source, HasSubstr(", 0x7BFF;"));
  EXPECT_THAT(RenderOne(h.maximum(5.9604645e-8f)).source.source, HasSubstr(", 0x0001;"));
  // PTX has no f16 division: the quotient is float32's, rounded once more (exact: see the renderer)
  std::string div = RenderOne(h / g).source.source;
  EXPECT_THAT(div, HasSubstr("cvt.f32.f16"));
  EXPECT_THAT(div, HasSubstr("cvt.rn.f16.f32")) << div;
  std::string cmp = RenderOne((h < g).where(h, g)).source.source;
  EXPECT_THAT(cmp, HasSubstr("setp.lt.f16"));
  EXPECT_THAT(cmp, HasSubstr("selp.b16")) << cmp;
  // Before sm_53 PTX has no f16 arithmetic: everything but moves and conversions runs in float32.
  std::string old = RenderOne(h + g, "sm_52").source.source;
  EXPECT_THAT(old, Not(HasSubstr(".f16 %rs"))) << old;
  EXPECT_THAT(old, HasSubstr("add.f32")) << old;
  EXPECT_THAT(old, HasSubstr("cvt.rn.f16.f32")) << old;
  // every kernel of the half corpus renders
  for (const Tensor& t : HalfCorpus())
    for (const char* arch : {"sm_52", "sm_80", "sm_90"}) EXPECT_NO_THROW(Render(t, arch)) << arch;
}

// Before sm_53 half math is float32 math between conversions. This toolkit's ptxas may no longer know
// sm_5x (CUDA 13 dropped it), so the text is assembled as sm_75, whose ISA holds every sm_52 one: the
// check is of the spelling, not of the older target's instruction set.
TEST(Ptx, HalfBeforeSm53AssemblesAsFloat32Math) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  std::string ptxas = Ptxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (/usr/local/cuda/bin/ptxas or $PTXAS): the CUDA toolkit is absent";
  int assembled = 0;
  for (const Tensor& t : HalfCorpus())
    for (const GeneratedKernel& k : Render(t, "sm_52")) {
      std::string ptx = k.source.source;
      const std::string from = ".version 6.0\n.target sm_52\n";
      ASSERT_NE(ptx.find(from), std::string::npos) << ptx;
      ptx.replace(ptx.find(from), from.size(), ".version 6.3\n.target sm_75\n");
      std::string err = Assemble(ptxas, ptx, "sm_75", k.name + "_sm52_" + std::to_string(assembled++));
      ASSERT_EQ(err, "") << k.name << "\n" << ptx;
    }
  EXPECT_GE(assembled, 30);
}

// A GROUP reduce: each item's partial into a .shared array, addressed from the array's own symbol,
// then bar.sync before the items read the group's partials.
TEST(Ptx, GroupReduceGoesThroughSharedMemoryAndABarrier) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  using ::testing::HasSubstr;
  std::string f32 = RenderGrouped(Tensor::empty({8, 64}, dtypes::float32, "CPU").sum({1}), 16).source.source;
  EXPECT_THAT(f32, HasSubstr(".shared .align 4 .b8 temp0[64];")) << f32;  // 16 items' float partials
  EXPECT_THAT(f32, ::testing::ContainsRegex("mov.u64 %rd[0-9]+, temp0;"));
  EXPECT_THAT(f32, HasSubstr("st.shared.f32 ["));
  EXPECT_THAT(f32, HasSubstr("ld.shared.f32 %f"));
  EXPECT_THAT(f32, HasSubstr("bar.sync 0;"));
  EXPECT_LT(f32.find("st.shared"), f32.find("bar.sync"));
  EXPECT_LT(f32.find("bar.sync"), f32.find("ld.shared"));
  std::string f16 = RenderGrouped(Tensor::empty({8, 64}, dtypes::float16, "CPU").max({1}), 16).source.source;
  EXPECT_THAT(f16, HasSubstr(".shared .align 2 .b8 temp0[32];")) << f16;
  EXPECT_THAT(f16, HasSubstr("st.shared.b16 ["));
  EXPECT_THAT(f16, HasSubstr("ld.shared.b16 %rs"));
  std::string any = RenderGrouped(Tensor::empty({8, 64}, dtypes::bool_, "CPU").max({1}), 8).source.source;
  EXPECT_THAT(any, HasSubstr(".shared .align 1 .b8 temp0[8];")) << any;  // bool partials are bytes
  EXPECT_THAT(any, HasSubstr("st.shared.u8 ["));
  // the heuristic groups a reduce into few outputs on the ptx path as on cuda-c
  std::string sum = RenderOne(Tensor::empty({4096}, dtypes::float32, "CPU").sum()).source.source;
  EXPECT_THAT(sum, HasSubstr(".shared")) << sum;
  EXPECT_THAT(sum, HasSubstr("bar.sync 0;"));
}

TEST(Ptx, TargetComesFromTheDeviceArch) {
  setenv("TG_DISABLE_PLUGINS", "OPENCL,CUDA,HIP", 1);
  Tensor a = Tensor::rand({64});
  Schedule s = CreateSchedule({(a + 1).uop()}, {a.device()});
  GeneratedKernel k80 = GenerateKernel(s.items.back().ast, PtxDevice("sm_80"));
  EXPECT_NE(k80.source.source.find(".target sm_80"), std::string::npos) << k80.source.source;
  EXPECT_NE(k80.source.source.find(".version 7.0"), std::string::npos);
  EXPECT_NE(k80.source.source.find(".visible .entry " + k80.name + "("), std::string::npos);
  EXPECT_NE(k80.source.source.find(".param .u64 " + k80.name + "_param_1"), std::string::npos);
  EXPECT_NE(k80.source.source.find("%tid.x"), std::string::npos);  // 64 items: one group of 64
  EXPECT_EQ(PtxRenderer("").arch(), "sm_90");  // the default
  // A variable is a 32-bit parameter after the buffers, loaded once.
  Tensor pos = Variable("pos", 0, 63).tensor();
  Schedule sv = CreateSchedule({(a * pos.cast(dtypes::float32)).uop()}, {a.device()});
  GeneratedKernel kv = GenerateKernel(sv.items.back().ast, PtxDevice("sm_80"));
  EXPECT_NE(kv.source.source.find(".param .s32 " + kv.name + "_param_2"), std::string::npos) << kv.source.source;
  EXPECT_NE(kv.source.source.find("ld.param.s32"), std::string::npos);
  EXPECT_EQ(PtxRenderer("gfx90a").arch(), "sm_90");
}

}  // namespace
}  // namespace tg::compiler
